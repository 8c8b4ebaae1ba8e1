// RFC 8785 canonicalization: the RFC's own vectors, then properties over generated JSON (key order,
// unicode, numbers), since a mandate signature is only as stable as this byte sequence.
import { CanonicalizationError, canonicalize, compareUtf16 } from '../domain/canonical-json';
import { forAll, type Random } from './support/property';

/** The member names of a flat canonical object in written order (Object.keys would move integer-like names first). */
function memberKeys(canonical: string): string[] {
  const keys: string[] = [];
  const pattern = /(?:^\{|,)("(?:[^"\\]|\\.)*"):/g;
  for (const match of canonical.matchAll(pattern)) keys.push(JSON.parse(match[1]) as string);
  return keys;
}

describe('RFC 8785 vectors', () => {
  it('canonicalizes the RFC example of numbers, strings and literals', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalize(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units, so an astral character sorts before U+FB33', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(memberKeys(canonicalize(input))).toEqual([
      '\r',
      '1',
      '\u0080',
      '\u00f6',
      '\u20ac',
      '\ud83d\ude00',
      '\ufb33',
    ]);
  });

  it.each([
    [0, '0'],
    [-0, '0'],
    [1, '1'],
    [-1, '-1'],
    [4.5, '4.5'],
    [0.002, '0.002'],
    [1e21, '1e+21'],
    [1e20, '100000000000000000000'],
    [1e-7, '1e-7'],
    [0.000001, '0.000001'],
    [123456789012345680000, '123456789012345680000'],
    [9007199254740991, '9007199254740991'],
    [-9007199254740991, '-9007199254740991'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [0.1 + 0.2, '0.30000000000000004'],
    [295147905179352830000, '295147905179352830000'],
  ])('serializes the number %p as %s', (value, expected) => {
    expect(canonicalize(value)).toBe(expected);
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a bigint', 10n],
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone low surrogate as a key', { '\udc00': 1 }],
    ['a Date', new Date(0)],
    ['a function', () => 1],
    ['undefined in an array', [1, undefined]],
  ])('refuses %s', (_name, value) => {
    expect(() => canonicalize(value)).toThrow(CanonicalizationError);
  });

  it('refuses a cycle but accepts the same object twice side by side', () => {
    const shared = { a: 1 };
    expect(canonicalize({ x: shared, y: shared })).toBe('{"x":{"a":1},"y":{"a":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalize(cyclic)).toThrow(CanonicalizationError);
  });

  it('leaves out members whose value is undefined, as JSON does', () => {
    expect(canonicalize({ b: undefined, a: 1 })).toBe('{"a":1}');
  });
});

// Generators of JSON values with awkward strings and numbers.
const CHARS = [
  'a',
  'Z',
  '0',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u0080',
  'é',
  'ö',
  '€',
  '\u2028',
  '\ufb33',
  '\uffff',
  '😀',
  '𝄞',
  '中',
];

function string(random: Random): string {
  return Array.from({ length: random.int(0, 6) }, () => random.pick(CHARS)).join('');
}

function number(random: Random): number {
  switch (random.int(0, 5)) {
    case 0:
      return random.int(-1000, 1000);
    case 1:
      return (random.next() - 0.5) * 10 ** random.int(-30, 30);
    case 2:
      return random.int(-(2 ** 31), 2 ** 31) * 2 ** random.int(0, 22);
    case 3:
      return Number((random.next() * 1000).toFixed(random.int(0, 6)));
    case 4:
      return random.pick([
        0,
        -0,
        1e21,
        1e-7,
        5e-324,
        Number.MAX_SAFE_INTEGER,
        Number.MAX_VALUE,
        -Number.MIN_VALUE,
      ]);
    default:
      return random.next();
  }
}

function value(random: Random, depth: number): unknown {
  const kind = random.int(0, depth > 3 ? 3 : 5);
  switch (kind) {
    case 0:
      return random.pick([null, true, false]);
    case 1:
      return number(random);
    case 2:
    case 3:
      return string(random);
    case 4:
      return Array.from({ length: random.int(0, 4) }, () => value(random, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = random.int(0, 5); i > 0; i--) out[string(random)] = value(random, depth + 1);
      return out;
    }
  }
}

function reorder(random: Random, input: unknown): unknown {
  if (Array.isArray(input)) return input.map((item) => reorder(random, item));
  if (input && typeof input === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of random.shuffle(Object.keys(input)))
      out[key] = reorder(random, (input as Record<string, unknown>)[key]);
    return out;
  }
  return input;
}

describe('canonicalization properties', () => {
  it('gives the same bytes whatever the member order', () => {
    forAll('member order', 1000, (random) => {
      const input = value(random, 0);
      expect(canonicalize(reorder(random, input))).toBe(canonicalize(input));
    });
  });

  it('round-trips: parsing the canonical form gives back an equal value, and canonicalizing again changes nothing', () => {
    forAll('round trip', 1000, (random) => {
      const input = value(random, 0);
      const canonical = canonicalize(input);
      const parsed = JSON.parse(canonical);
      expect(parsed).toEqual(JSON.parse(JSON.stringify(input)));
      expect(canonicalize(parsed)).toBe(canonical);
    });
  });

  it('spells every finite number in its shortest round-trip form', () => {
    forAll('numbers', 5000, (random) => {
      const n = number(random);
      const text = canonicalize(n);
      expect(Object.is(Number(text), n) || (n === 0 && text === '0')).toBe(true);
      expect(text).not.toMatch(/^-0$|\.0+(e|$)|e\+?0\d|^\+/);
    });
  });

  it('sorts members by UTF-16 code units at every level', () => {
    forAll('key order', 500, (random) => {
      const input: Record<string, unknown> = {};
      for (let i = random.int(1, 8); i > 0; i--) input[string(random)] = random.int(0, 9);
      const keys = memberKeys(canonicalize(input));
      expect(keys).toHaveLength(Object.keys(input).length);
      for (let i = 1; i < keys.length; i++) expect(compareUtf16(keys[i - 1], keys[i])).toBeLessThan(0);
    });
  });

  it('escapes only what RFC 8785 escapes: quote, backslash and control characters', () => {
    forAll('escaping', 1000, (random) => {
      const s = string(random);
      const text = canonicalize(s);
      const body = text.slice(1, -1);
      expect(body).not.toMatch(/[\u0000-\u001f]/);
      expect(body.replace(/\\(["\\/bfnrt]|u00[01][0-9a-f])/g, '')).not.toContain('\\');
      expect(JSON.parse(text)).toBe(s);
    });
  });
});

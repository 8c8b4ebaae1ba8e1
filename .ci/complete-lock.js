// The registry mirror here serves only some platforms' builds of packages with per-platform optional
// dependencies (@swc/core), so `npm install` leaves those entries out of package-lock.json and `npm ci`
// then refuses the lock. This adds the missing entries, with os/cpu taken from the package names, so
// npm ci skips them on every other platform as it would with a complete lock.
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
let added = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key] || lock.packages[`${location}/${key}`]) continue;
    const match =
      /-(darwin|linux|win32|freebsd|android|sunos|openbsd)-(arm64|x64|arm|ia32|ppc64|s390x|riscv64|loong64|mips64el)/.exec(
        name,
      );
    if (!match) continue;
    lock.packages[key] = { version, cpu: [match[2]], optional: true, os: [match[1]] };
    added++;
  }
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);

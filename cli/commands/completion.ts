// `gateway completion bash|zsh`: a completion script built from the live command tree, so every
// generated command and flag completes. zsh loads the same function through bashcompinit.
import type { Command } from 'commander';
import { usageError } from '../exit';

interface Node {
  key: string;
  children: string[];
  flags: string[];
}

function walk(command: Command, prefix: string[], into: Node[], globalFlags: string[]): void {
  const flags = [
    ...command.options.map((o) => o.long).filter((f): f is string => Boolean(f)),
    ...globalFlags,
  ];
  into.push({ key: prefix.join(' '), children: command.commands.map((c) => c.name()), flags });
  for (const child of command.commands) walk(child, [...prefix, child.name()], into, globalFlags);
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function bashScript(root: Command): string {
  const nodes: Node[] = [];
  const globalFlags = root.options.map((o) => o.long).filter((f): f is string => Boolean(f));
  walk(root, [], nodes, []);
  const children = nodes.map((n) => `    ${quote(n.key)}) echo ${quote(n.children.join(' '))} ;;`).join('\n');
  const flags = nodes
    .map(
      (n) =>
        `    ${quote(n.key)}) echo ${quote([...new Set([...n.flags, ...globalFlags, '--help'])].join(' '))} ;;`,
    )
    .join('\n');
  return `# gateway completion for bash: source <(gateway completion bash)
_gateway_children() {
  case "$1" in
${children}
  esac
}
_gateway_flags() {
  case "$1" in
${flags}
  esac
}
_gateway() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" key="" word i next
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    for next in $(_gateway_children "$key"); do
      if [[ "$next" == "$word" ]]; then key="\${key:+$key }$word"; break; fi
    done
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_gateway_flags "$key")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_gateway_children "$key")" -- "$cur"))
  fi
}
complete -F _gateway gateway
`;
}

export function zshScript(root: Command): string {
  return `#compdef gateway
# gateway completion for zsh: source <(gateway completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(root).split('\n').slice(1).join('\n')}`;
}

export function registerCompletion(root: Command): void {
  root
    .command('completion')
    .description('print a shell completion script: source <(gateway completion bash)')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell === 'bash') process.stdout.write(bashScript(root));
      else if (shell === 'zsh') process.stdout.write(zshScript(root));
      else throw usageError(`completion is available for bash and zsh, not "${shell}"`);
    });
}

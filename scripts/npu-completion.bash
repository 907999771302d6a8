# Bash completion for npu: subcommands and options are read from `npu --help` and
# `npu <subcommand> --help`, so they always match the installed binary.
_npu_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local npu=${COMP_WORDS[0]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    local subcommands
    subcommands=$("$npu" --help 2>/dev/null | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
    mapfile -t COMPREPLY < <(compgen -W "$subcommands --help --version" -- "$cur")
    return
  fi
  if [[ $cur == -* ]]; then
    local options
    options=$("$npu" "${COMP_WORDS[1]}" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
    mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
    return
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _npu_complete npu

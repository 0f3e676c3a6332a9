# bash completion for ddbst: the verbs, each verb's options, and the entity,
# attribute and pattern names of the model on the command line, all asked of
# ddbst itself (ddbst help --verbs, --options VERB, --names MODEL KIND), so
# the completion never lags behind the command. Installed by cmake --install
# into share/bash-completion/completions.
_ddbst() {
  local cur=${COMP_WORDS[COMP_CWORD]} verb= at=0 i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      --table) ((i++)) ;;
      -*) ;;
      *) verb=${COMP_WORDS[i]} at=$i; break ;;
    esac
  done
  if [[ -z $verb ]]; then
    COMPREPLY=($(compgen -W "$(ddbst help --verbs 2>/dev/null) --table --version --help" -- "$cur"))
    return
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(ddbst help --options "$verb" 2>/dev/null)" -- "$cur"))
    return
  fi
  local pos=$((COMP_CWORD - at)) model=${COMP_WORDS[at + 1]}
  [[ $verb == generate ]] && model=${COMP_WORDS[at + 2]}
  case $verb:$pos in
    help:*) COMPREPLY=($(compgen -W "$(ddbst help --verbs 2>/dev/null)" -- "$cur")) ;;
    generate:1) COMPREPLY=($(compgen -W "typescript python c" -- "$cur")) ;;
    keys:2 | get:2 | put:2 | create:2 | delete:2 | update:2)
      COMPREPLY=($(compgen -W "$(ddbst help --names "$model" entities 2>/dev/null)" -- "$cur")) ;;
    query:2 | page:2)
      COMPREPLY=($(compgen -W "$(ddbst help --names "$model" patterns 2>/dev/null)" -- "$cur")) ;;
    keys:* | get:* | put:* | create:* | delete:* | update:*)
      if ((pos > 2)) && [[ $cur != *=* ]]; then
        COMPREPLY=($(compgen -S = -W "$(ddbst help --names "$model" "attributes:${COMP_WORDS[at + 2]}" 2>/dev/null)" -- "$cur"))
        compopt -o nospace 2>/dev/null
      else
        COMPREPLY=($(compgen -f -- "$cur"))
      fi ;;
    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -F _ddbst ddbst

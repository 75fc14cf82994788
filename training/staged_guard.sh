# Sourced by the commit scripts: refuse to commit when files outside PREFIX are staged (someone
# else's work would go into a training commit). Usage: refuse_foreign_staged SCRIPT PREFIX
refuse_foreign_staged() {
    local staged
    staged=$(git diff --cached --name-only | grep -v "^$2" || true)
    if [ -n "$staged" ]; then
        echo "$1: other files are staged, not committing:" >&2
        echo "$staged" >&2
        exit 1
    fi
}

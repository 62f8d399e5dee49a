#!/usr/bin/env bash
# Extracts the source files of every repository in bench/parse-corpus.json, at its pinned commit,
# from bare git mirrors into a corpus directory that `npm run bench:parse` reads.
#   bench/extract-parse-corpus.sh <mirrors-dir> <corpus-dir>
# <mirrors-dir>/<owner>+<name>/repo (or <owner>+<name>.git) must be a clone holding that commit;
# `git clone --bare https://github.com/<owner>/<name> <mirrors-dir>/<owner>+<name>/repo` makes one.
set -euo pipefail
mirrors=${1:?usage: extract-parse-corpus.sh <mirrors-dir> <corpus-dir>}
corpus=${2:?usage: extract-parse-corpus.sh <mirrors-dir> <corpus-dir>}
here=$(cd "$(dirname "$0")" && pwd)
exts='\.(py|pyi|js|mjs|cjs|jsx|ts|mts|cts|tsx|go|rs|java)$'
node -e 'for (const r of require(process.argv[1]).repos) console.log(r.repo, r.commit)' "$here/parse-corpus.json" |
while read -r repo commit; do
  key=${repo/\//+}
  git_dir="$mirrors/$key/repo"
  [ -d "$git_dir" ] || git_dir="$mirrors/$key.git"
  if [ ! -d "$git_dir" ]; then echo "skip $repo: no mirror at $mirrors/$key" >&2; continue; fi
  out="$corpus/$key"
  rm -rf "$out" && mkdir -p "$out"
  # Only source files: large data blobs may be missing from partial mirrors (git archive still
  # prints "invalid object" for them even though they are not extracted; that is harmless).
  git --git-dir="$git_dir" ls-tree -r -z --name-only "$commit" | grep -zE "$exts" |
    xargs -0 -r git --git-dir="$git_dir" archive "$commit" -- | tar -x -i -C "$out"
  echo "$repo@${commit:0:12}: $(find "$out" -type f | wc -l) source files in $out"
done

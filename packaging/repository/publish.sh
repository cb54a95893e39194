#!/usr/bin/env bash
# Publishes gpuconform's .deb files into a signed apt repository with Debian's reprepro.
#
#   publish.sh --repo DIR --codename bookworm|trixie --sign-with KEY DEB...
#
#   DIR    the repository's root, created on first use (conf/distributions); serve it as static
#          files over HTTP(S). Each codename is its own distribution: the Debian 12 and 13 builds
#          differ (revisions 1~deb12 and 1~deb13).
#   KEY    a gpg key (id or fingerprint) whose secret key is in the caller's keyring ($GNUPGHOME);
#          InRelease and Release.gpg are signed with it.
#
# A newer version of a package replaces the older one in the index (apt upgrades to it); the same
# version with other contents is refused by reprepro. The public key is written beside the
# repository as gpuconform-archive-keyring.gpg, for clients' signed-by (README "From an apt
# repository"). Needs: reprepro, gnupg.
set -euo pipefail

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
repo="" codename="" key=""
debs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --repo) repo="${2:?--repo needs a folder}"; shift 2 ;;
        --codename) codename="${2:?--codename needs bookworm or trixie}"; shift 2 ;;
        --sign-with) key="${2:?--sign-with needs a gpg key}"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "publish.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) debs+=("$1"); shift ;;
    esac
done
[ -n "$repo" ] && [ -n "$codename" ] && [ -n "$key" ] && [ ${#debs[@]} -gt 0 ] \
    || { echo "publish.sh: --repo, --codename, --sign-with and at least one .deb are needed" >&2; usage >&2; exit 2; }
case "$codename" in
    bookworm|trixie) ;;
    *) echo "publish.sh: codename '$codename' is not one gpuconform builds for (bookworm, trixie)" >&2; exit 2 ;;
esac
for deb in "${debs[@]}"; do
    [ -f "$deb" ] && [[ "$deb" == *.deb ]] || { echo "publish.sh: not a .deb file: $deb" >&2; exit 2; }
done
command -v reprepro >/dev/null || { echo "publish.sh: reprepro is not installed (apt-get install reprepro)" >&2; exit 2; }
gpg --batch --list-secret-keys "$key" >/dev/null 2>&1 \
    || { echo "publish.sh: no secret key '$key' in the keyring${GNUPGHOME:+ $GNUPGHOME}" >&2; exit 2; }

mkdir -p "$repo/conf"
touch "$repo/conf/distributions"
if ! grep -q "^Codename: $codename\$" "$repo/conf/distributions"; then
    [ -s "$repo/conf/distributions" ] && echo >>"$repo/conf/distributions"
    cat >>"$repo/conf/distributions" <<DIST
Origin: gpuconform
Label: gpuconform
Codename: $codename
Architectures: amd64
Components: main
Description: gpuconform, conformance checks for GPU software installs
SignWith: $key
DIST
fi
reprepro --basedir "$repo" --silent includedeb "$codename" "${debs[@]}"
gpg --batch --export "$key" >"$repo/gpuconform-archive-keyring.gpg"
reprepro --basedir "$repo" list "$codename"

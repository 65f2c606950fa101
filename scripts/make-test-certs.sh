#!/usr/bin/env bash
# Certificates for the TLS tests (never for production), made with openssl under DIR:
#   ca.pem, ca-key.pem              a test CA
#   server-cert.pem, server-key.pem signed by it, for the host name "localhost" only (so a
#                                   client that connects to 127.0.0.1 with verify_identity sees
#                                   a name that does not match)
#   client-cert.pem, client-key.pem signed by it, for accounts that REQUIRE X509
#   other-ca.pem                    a second CA that signed none of them (the "wrong CA" case)
#   make-test-certs.sh DIR
set -euo pipefail
dir=${1:?DIR}
mkdir -p "$dir"
cd "$dir"
days=3650
# Runs a command, showing its output only when it fails.
quiet() {
  local out
  out=$("$@" 2>&1) || {
    echo "$out" >&2
    return 1
  }
}

quiet openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj "/CN=outbox-relay test CA" \
  -keyout ca-key.pem -out ca.pem
quiet openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj "/CN=some other CA" \
  -keyout other-ca-key.pem -out other-ca.pem

# leaf NAME SUBJECT [EXTENSIONS]: NAME-key.pem and NAME-cert.pem, signed by ca.pem.
leaf() {
  local name=$1 subject=$2 extensions=${3:-}
  quiet openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$name-key.pem" \
    -out "$name.csr"
  local args=(x509 -req -in "$name.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
    -days "$days" -out "$name-cert.pem")
  if [[ -n $extensions ]]; then
    printf '%s\n' "$extensions" >"$name.ext"
    args+=(-extfile "$name.ext")
  fi
  quiet openssl "${args[@]}"
  rm -f "$name.csr" "$name.ext"
}
leaf server "/CN=localhost" "subjectAltName=DNS:localhost"
leaf client "/CN=outbox-relay test client"
chmod 600 ./*-key.pem

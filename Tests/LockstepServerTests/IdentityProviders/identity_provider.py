"""A test identity provider for Lockstep's JWT sign-in tests (IdentityProviderProcess).

Serves its JWKS over HTTPS at /jwks.json, under a certificate for 127.0.0.1 and localhost that a CA made
here signed (ca.pem: what the server is told to trust), and takes orders on a plain HTTP
control port on 127.0.0.1: mint a token (or a forged one), rotate or retire keys, go down,
and say how many times the JWKS was fetched. Writes ready.json (the two ports) into the
directory it is given once both listen, and exits when its parent does.

    python3 identity_provider.py DIRECTORY
"""

import base64
import datetime
import hashlib
import hmac
import ipaddress
import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID

ISSUER = "https://id.test.example/"
lock = threading.Lock()
keys = {}  # kid -> private key; every one is in the JWKS
fetches = 0
down = False
rsa_generation = 1


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def uint(n: int) -> str:
    return b64url(n.to_bytes((n.bit_length() + 7) // 8, "big"))


def jwk(kid, key):
    public = key.public_key()
    if isinstance(key, rsa.RSAPrivateKey):
        numbers = public.public_numbers()
        return {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": uint(numbers.n), "e": uint(numbers.e)}
    if isinstance(key, ec.EllipticCurvePrivateKey):
        numbers = public.public_numbers()
        return {"kty": "EC", "kid": kid, "crv": "P-256", "x": b64url(numbers.x.to_bytes(32, "big")),
                "y": b64url(numbers.y.to_bytes(32, "big"))}
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {"kty": "OKP", "kid": kid, "crv": "Ed25519", "x": b64url(raw)}


def algorithm(key):
    if isinstance(key, rsa.RSAPrivateKey):
        return "RS256"
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return "ES256"
    return "EdDSA"


def public_pem(key) -> str:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def mint(order):
    """A token as the order says: signed by `kid` (as its own algorithm, or as `alg` when the
    order forges one), with `claims` over defaults, and `tamper` to alter the payload after
    signing."""
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": "lockstep-tests", "sub": "user-1", "iat": now, "exp": now + 300}
    claims.update(order.get("claims", {}))
    for name in order.get("omit", []):
        claims.pop(name, None)
    with lock:
        kid = order.get("kid") or next(k for k in keys if k.startswith("rsa-"))
        key = keys.get(kid) or keys[order["signWith"]]
    alg = order.get("alg")
    if alg == "none":
        token = jwt.encode(claims, None, algorithm="none", headers={"kid": kid})
    elif alg == "HS256":
        # The classic confusion: the provider's own public key used as an HMAC secret.
        header = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
        body = b64url(json.dumps(claims).encode())
        secret = public_pem(keys[kid]).encode()
        signature = hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
        token = f"{header}.{body}.{b64url(signature)}"
    else:
        signer = keys[order["signWith"]] if "signWith" in order else key
        token = jwt.encode(claims, signer, algorithm=alg or algorithm(signer), headers={"kid": kid})
    if order.get("tamper"):
        header, _, signature = token.split(".")
        claims["sub"] = order["tamper"]
        token = f"{header}.{b64url(json.dumps(claims).encode())}.{signature}"
    return token


class JWKSHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        global fetches
        with lock:
            fetches += 1
            body = json.dumps({"keys": [jwk(kid, key) for kid, key in keys.items()]}).encode()
            is_down = down
        if is_down or self.path != "/jwks.json":
            self.send_response(503 if is_down else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class ControlHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, value):
        body = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with lock:
            if self.path == "/fetches":
                return self.answer({"fetches": fetches})
            if self.path.startswith("/pem/"):
                return self.answer({"pem": public_pem(keys[self.path[5:]])})
        self.send_error(404)

    def do_POST(self):
        global down, rsa_generation
        length = int(self.headers.get("Content-Length") or 0)
        order = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/mint":
            return self.answer({"token": mint(order)})
        with lock:
            if self.path == "/rotate":
                # A new RSA key, first in the JWKS and the one new tokens are signed with.
                rsa_generation += 1
                kid = f"rsa-{rsa_generation}"
                keys.update({kid: rsa.generate_private_key(public_exponent=65537, key_size=2048)})
                ordered = {kid: keys.pop(kid)}
                ordered.update(keys)
                keys.clear()
                keys.update(ordered)
                return self.answer({"kid": kid})
            if self.path == "/retire":
                keys.pop(order["kid"], None)
                return self.answer({"kids": list(keys)})
            if self.path == "/down":
                down = bool(order.get("down"))
                return self.answer({"down": down})
        self.send_error(404)


def certificate_authority(directory):
    """A CA, and a certificate for 127.0.0.1 and localhost it signed: ca.pem is what the server trusts."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Lockstep test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
                   .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
                                  critical=False)
                   .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                   .sign(ca_key, hashes.SHA256()))
    with open(os.path.join(directory, "ca.pem"), "wb") as file:
        file.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(directory, "server.pem"), "wb") as file:
        file.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(directory, "server.key"), "wb") as file:
        file.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()))


def main():
    directory = sys.argv[1]
    keys["rsa-1"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    keys["ec-1"] = ec.generate_private_key(ec.SECP256R1())
    keys["ed-1"] = ed25519.Ed25519PrivateKey.generate()
    certificate_authority(directory)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(directory, "server.pem"), os.path.join(directory, "server.key"))
    jwks = ThreadingHTTPServer(("127.0.0.1", 0), JWKSHandler)
    jwks.socket = context.wrap_socket(jwks.socket, server_side=True)
    control = ThreadingHTTPServer(("127.0.0.1", 0), ControlHandler)
    for server in (jwks, control):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    ready = os.path.join(directory, "ready.json")
    with open(ready + ".tmp", "w") as file:
        json.dump({"jwks": jwks.server_address[1], "control": control.server_address[1]}, file)
    os.rename(ready + ".tmp", ready)
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.2)


if __name__ == "__main__":
    main()

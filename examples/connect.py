"""A web application connecting to Comptoir with OAuth 2.0 (README "Connecting an application").
Run: CLIENT_ID=... CLIENT_SECRET=... uv run python examples/connect.py, then open http://127.0.0.1:8001/"""

import base64
import hashlib
import html
import os
import secrets
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx

HUB, PORT = os.environ.get("COMPTOIR_URL", "http://127.0.0.1:8000"), int(os.environ.get("PORT", "8001"))
CLIENT, SCOPE = (os.environ["CLIENT_ID"], os.environ["CLIENT_SECRET"]), "location[orders.read]"
REDIRECT, pending = f"http://127.0.0.1:{PORT}/callback", {}  # pending: state -> PKCE verifier


class App(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        path, query = urlsplit(self.path).path, dict(parse_qsl(urlsplit(self.path).query))
        if path == "/connect":  # off to Comptoir, with a state (against CSRF) and a PKCE challenge
            state, verifier = secrets.token_urlsafe(16), secrets.token_urlsafe(48)
            pending[state] = verifier
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            ask = {"client_id": CLIENT[0], "redirect_uri": REDIRECT, "scope": SCOPE, "state": state}
            ask |= {"code_challenge": challenge, "code_challenge_method": "S256"}
            self.reply(303, "", HUB + "/oauth2/v1/authorize?" + urlencode(ask))
        elif path == "/callback" and "code" in query and query.get("state") in pending:
            form = {"code": query["code"], "redirect_uri": REDIRECT, "code_verifier": pending.pop(query["state"])}
            token = httpx.post(HUB + "/oauth2/v1/token", data=form, auth=CLIENT).json()["access_token"]  # server-side
            location = httpx.get(HUB + "/v1/location", headers={"X-Access-Token": token}).json()
            self.reply(200, f"<p>Connected to {html.escape(location['name'])}.</p>")
        elif path == "/callback":  # Deny, or a state this application did not send
            self.reply(400, f"<p>Not connected: {html.escape(query.get('error', 'unexpected answer'))}.</p>")
        else:
            self.reply(200, '<p><a href="/connect">Connect</a> this application to your Comptoir location.</p>')

    def reply(self, status: int, body: str, location: str = "") -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Location", location) if location else None
        self.end_headers()
        self.wfile.write(f"<!doctype html><title>Example app</title>{body}".encode())


if __name__ == "__main__":
    print(f"Open http://127.0.0.1:{PORT}/", flush=True)
    HTTPServer(("127.0.0.1", PORT), App).serve_forever()

"""A web application connecting to Comptoir with OAuth 2.0 (README "Connecting an application").
Run: CLIENT_ID=... CLIENT_SECRET=... uv run python examples/connect.py, then open http://127.0.0.1:8001/"""

import html
import os
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qsl, urlsplit

from comptoir_client import Comptoir, OAuthClient, authorization_request

HUB, PORT = os.environ.get("COMPTOIR_URL", "http://127.0.0.1:8000"), int(os.environ.get("PORT", "8001"))
CLIENT, SCOPE = (os.environ["CLIENT_ID"], os.environ["CLIENT_SECRET"]), "location[orders.read]"
REDIRECT, pending = f"http://127.0.0.1:{PORT}/callback", {}  # pending: state -> PKCE verifier


class App(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        path, query = urlsplit(self.path).path, dict(parse_qsl(urlsplit(self.path).query))
        if path == "/connect":  # off to Comptoir, with a state (against CSRF) and a PKCE challenge
            ask = authorization_request(HUB, CLIENT[0], REDIRECT, SCOPE)
            pending[ask.state] = ask.code_verifier
            self.reply(303, "", ask.url)
        elif path == "/callback" and "code" in query and query.get("state") in pending:
            with OAuthClient(*CLIENT, HUB) as oauth:  # server-side: the secret never reaches the browser
                token = oauth.exchange(query["code"], pending.pop(query["state"]), REDIRECT)
            with Comptoir(token.access_token, HUB) as client:
                location = client.locations.get()  # the token's own location
            self.reply(200, f"<p>Connected to {html.escape(location.name)}.</p>")
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

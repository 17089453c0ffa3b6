"""Code run in a hub user's own kernel, as their notebook would run it: logged in with their password.

``Session(hub_url, name, password)`` logs in through the hub's login page (as the browser does),
takes a hub token of the user's own (their hub API, with their cookie), starts their server if it
is not running, and ``run(code)`` executes ``code`` in a kernel of that server over its websocket:
what the code printed comes back. Nothing here is more than what the user can do from their Lab.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import requests


def login(hub_url: str, name: str, password: str, timeout: float = 120) -> requests.Session:
    """A browser's session of ``name``, logged in through the hub's login page."""
    http = requests.Session()
    http.get(f"{hub_url}/hub/login", timeout=30)
    xsrf = http.cookies.get("_xsrf", "")
    r = http.post(f"{hub_url}/hub/login", data={"username": name, "password": password, "_xsrf": xsrf},
                  timeout=timeout)
    assert r.ok and "/hub/login" not in r.url, (r.status_code, r.url)
    return http


def token(http: requests.Session, hub_url: str, name: str) -> str:
    """A hub token of ``name``'s own, asked for with their logged-in session (as the hub's token page does)."""
    xsrf = next(c.value for c in http.cookies if c.name == "_xsrf" and c.path.startswith("/hub"))
    r = http.post(f"{hub_url}/hub/api/users/{name}/tokens", json={"note": "their own code", "expires_in": 3600},
                  headers={"X-XSRFToken": xsrf}, timeout=30)
    assert r.status_code in (200, 201), r.text
    return r.json()["token"]


class Session:
    def __init__(self, hub_url: str, name: str, password: str, timeout: float = 120):
        self.hub, self.name = hub_url.rstrip("/"), name
        self.http = login(self.hub, name, password, timeout)
        self.token = token(self.http, self.hub, name)
        self.headers = {"Authorization": f"token {self.token}"}
        self.server = f"{self.hub}/user/{name}"
        deadline = time.monotonic() + timeout
        while not requests.get(f"{self.server}/api/status", headers=self.headers, timeout=30).ok:
            requests.post(f"{self.hub}/hub/api/users/{name}/server", headers=self.headers, timeout=30)
            assert time.monotonic() < deadline, f"{name}'s server never started"
            time.sleep(1)
        r = requests.post(f"{self.server}/api/kernels", json={"name": "python3"}, headers=self.headers, timeout=60)
        assert r.status_code == 201, r.text
        self.kernel = r.json()["id"]

    def run(self, code: str, timeout: float = 60) -> str:
        """What ``code`` printed (stdout and stderr), run in the user's kernel; an error fails the test.
        (In a thread of its own: Playwright's loop may be running in this one.)"""
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, self._run(code, timeout)).result()

    async def _run(self, code: str, timeout: float) -> str:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = self.server.replace("http", "ws", 1) + f"/api/kernels/{self.kernel}/channels"
        ws = await websocket_connect(HTTPRequest(url, headers=self.headers))
        msg_id = uuid.uuid4().hex
        ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": self.name, "session": msg_id,
                       "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "buffers": [], "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True},
        }))
        out: list[str] = []
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                assert left > 0, f"the code did not finish within {timeout} s: {''.join(out)[-2000:]}"
                message = await asyncio.wait_for(ws.read_message(), left)
                assert message is not None, "the kernel's websocket closed"
                msg = json.loads(message)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg["header"]["msg_type"], msg["content"]
                if kind == "stream":
                    out.append(content["text"])
                elif kind == "error":
                    raise AssertionError(f"{content['ename']}: {content['evalue']}\n{''.join(out)}")
                elif kind == "status" and content["execution_state"] == "idle":
                    return "".join(out)
        finally:
            ws.close()

    def terminal(self, command: str, timeout: float = 60) -> str:
        """What ``command`` printed in a new terminal of the user's server, as one typed in the Lab's."""
        from concurrent.futures import ThreadPoolExecutor

        r = requests.post(f"{self.server}/api/terminals", headers=self.headers, timeout=30)
        assert r.ok, r.text
        name = r.json()["name"]
        try:
            with ThreadPoolExecutor(1) as pool:
                return pool.submit(asyncio.run, self._terminal(name, command, timeout)).result()
        finally:
            requests.delete(f"{self.server}/api/terminals/{name}", headers=self.headers, timeout=30)

    async def _terminal(self, name: str, command: str, timeout: float) -> str:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = self.server.replace("http", "ws", 1) + f"/terminals/websocket/{name}"
        ws = await websocket_connect(HTTPRequest(url, headers=self.headers))
        end = uuid.uuid4().hex
        ws.write_message(json.dumps(["stdin", f"{command}; echo {end[:8]}''{end[8:]}\r"]))
        out = ""
        deadline = time.monotonic() + timeout
        try:
            while end not in out:
                left = deadline - time.monotonic()
                assert left > 0, f"the command did not finish within {timeout} s: {out[-2000:]}"
                message = await asyncio.wait_for(ws.read_message(), left)
                assert message is not None, "the terminal's websocket closed"
                kind, *rest = json.loads(message)
                if kind == "stdout":
                    out += rest[0]
            return out[: out.index(end)]
        finally:
            ws.close()

    def close(self) -> None:
        requests.delete(f"{self.server}/api/kernels/{self.kernel}", headers=self.headers, timeout=30)

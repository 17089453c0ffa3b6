"""A hub service made of gradekit.web.auth's handlers alone, for tests/hub/test_auth.py to log in to.

    <prefix>              InstructorPage: "instructor <name>" and the page's XSRF token
    <prefix>api/me        InstructorAPI: GET and POST answer {"name", "groups", "instructs"}
    <prefix>api/caller    CallerAPI (fresh): any hub user's {"name", "kind", "groups", "scopes"}
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from urllib.parse import urlparse

from tornado import web

from gradekit.web.auth import CallerAPI, InstructorAPI, InstructorPage, oauth_callback, service_settings


class Page(InstructorPage):
    def get(self):
        self.write(f"instructor {self.caller.name}\nxsrf {self.xsrf_token.decode()}\n")


class Me(InstructorAPI):
    def get(self):
        self.write({"name": self.caller.name, "groups": sorted(self.caller.groups),
                    "instructs": self.caller.instructs(self.course_id)})

    def post(self):
        self.write({"name": self.caller.name, "posted": json.loads(self.request.body or b"{}")})


class Any(CallerAPI):
    fresh = True

    def get(self):
        c = self.caller
        self.write({"name": c.name, "kind": c.kind, "groups": sorted(c.groups), "scopes": sorted(c.scopes)})


async def main() -> None:
    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    app = web.Application([(prefix, Page), (prefix + "api/me", Me), (prefix + "api/caller", Any),
                           oauth_callback(prefix)], **service_settings(sys.argv[1]))
    url = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    app.listen(url.port, url.hostname)
    print(f"whoami listening on {url.geturl()}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())

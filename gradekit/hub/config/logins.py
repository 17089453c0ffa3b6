"""Who logs in to a hub gradekit writes: one class per login, registered in LOGINS by its name.

A login gives the lines of a jupyterhub_config.py (``python``), or the ``hub.config`` values of a
Zero to JupyterHub chart (``values``), and makes what it needs in the hub's folder when the config
is written (``write``: e.g. the passwords). A shape lists the logins it can take, its own first.
A new login (an LMS's, LTI 1.3) is one more class here and its name in a shape's ``logins``.
"""

from __future__ import annotations

from gradekit.hub.config.plan import Plan, lit

PASSWORDS = "passwords.json"  # in the hub's state/: the hashed passwords
NEW_PASSWORDS = "new-passwords.csv"  # in the hub's folder, 0600: the new ones, for the admin to hand out


class Login:
    name = ""
    help = ""
    groups = False  # the login says who is in the instructors' group (at each login): the config does not

    def python(self, plan: Plan) -> list[str]:
        raise NotImplementedError

    def scopes(self) -> list[str]:
        """More scopes for the instructors' role (the login's own services)."""
        return []

    def services(self, plan: Plan) -> list[str]:
        """More entries of c.JupyterHub.services (the login's own service)."""
        return []

    def values(self, plan: Plan) -> dict:
        return {}

    def write(self, plan: Plan) -> list[str]:
        """What it made in the hub's folder, one line each (for the admin)."""
        return []


class PAM(Login):
    name = "pam"
    help = "Unix passwords (each student a Unix account of this machine)"

    def python(self, plan: Plan) -> list[str]:
        return [
            "# who logs in: the roster's accounts and the instructors, with their Unix passwords",
            'c.JupyterHub.authenticator_class = "pam"',
            f"c.Authenticator.allowed_users = {lit(set(plan.users))}",
        ]


class Passwords(Login):
    name = "passwords"
    help = "a password of each person's own, made by hub-config --write (no Unix account needed)"

    def python(self, plan: Plan) -> list[str]:
        return [
            "# who logs in: the roster's accounts and the instructors, each with a password of their own",
            f"# (hub-config --write makes one for each newcomer into {NEW_PASSWORDS}; the hashes are kept in state/)",
            'c.JupyterHub.authenticator_class = "gradekit.hub.login.PasswordAuthenticator"',
            f'c.PasswordAuthenticator.passwords_file = f"{{STATE}}/{PASSWORDS}"',
            f"c.Authenticator.allowed_users = {lit(set(plan.users))}",
        ]

    def write(self, plan: Plan) -> list[str]:
        import csv
        import io
        import os

        from gradekit.hub.login import give

        fresh = give(plan.folder / "state" / PASSWORDS, plan.users)
        if not fresh:
            return []
        target = plan.folder / NEW_PASSWORDS
        rows = io.StringIO()
        writer = csv.writer(rows, lineterminator="\n")
        old = target.read_text() if target.exists() else "name,password\n"
        for name, password in sorted(fresh.items()):
            writer.writerow([name, password])
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(old + rows.getvalue())
        return [
            f"{target}: a new password for {len(fresh)} person(s) ({', '.join(sorted(fresh))}): hand each their own, "
            "then delete the file"
        ]


class Chart(Login):
    name = "chart"
    help = "the chart's own (hub.config's authenticator: OAuth, LTI...): gradekit sets only who is allowed"

    def values(self, plan: Plan) -> dict:
        return {"Authenticator": {"allowed_users": plan.users}}


class LTI(Login):
    name = "lti"
    help = "from the LMS: LTI 1.3 launches, the platform `gradekit lti platform` registered (docs/admin/lti.md)"
    groups = True

    def python(self, plan: Plan) -> list[str]:
        from gradekit.lti.hubconf import login_lines
        from gradekit.web.auth import instructor_role

        https = plan.scheme == "https" or plan.public_url.startswith("https")
        return login_lines(plan.lti, instructor_role(plan.course_id), https)  # type: ignore[arg-type]

    def scopes(self) -> list[str]:
        from gradekit.lti.platform import SERVICE

        return [f"access:services!service={SERVICE}"]

    def services(self, plan: Plan) -> list[str]:
        from gradekit.lti.hubconf import service_entry
        from gradekit.web.auth import instructor_scope

        return service_entry(plan.assignments, instructor_scope(plan.course_id), plan.lti_port)


LOGINS: dict[str, Login] = {login.name: login for login in (PAM(), Passwords(), Chart(), LTI())}


def login_named(name: str) -> Login:
    return LOGINS[name]

"""What every shape of hub shares: the paths it needs, the login it takes, and the hub's folder it writes.

A shape (one class in this package, registered in gradekit.hub.config.SHAPES) says

    exchange        "filesystem" (nbgrader's folders, one Unix account a student) or "hub" (the hub
                    exchange, a service of the hub that knows students by their hub login)
    logins          the logins it takes (gradekit.hub.config.logins), its own first
    main            the file it writes (jupyterhub_config.py, or a chart's values.yaml)
    text(plan)      that file's text
    files(plan)     the other files it writes beside it (name -> text, mode)

and ``write`` puts them in the hub's folder with what every shape has: state/ (0700: the hub's
database and cookie secret, and on the hub exchange the course's token and the exchange's store),
students/ and instructors/ (each kind of server's Jupyter settings: the course, its exchange, the
Lab's panels), interfaces.csv (who gets Notebook 7), and what the login needs.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from gradekit.hub.config import pieces
from gradekit.hub.config.logins import Login, login_named
from gradekit.hub.config.plan import Plan, check


class Shape:
    name = ""
    help = ""
    exchange = "filesystem"
    logins: tuple[str, ...] = ()
    main = "jupyterhub_config.py"

    def login(self, plan: Plan) -> Login:
        return login_named(plan.login or self.logins[0])

    def needed(self, plan: Plan) -> dict[Path, str]:
        """The paths the config names that must be there: a service whose command is missing takes the hub down."""
        return {
            plan.gradekit: "the gradekit the services run (--gradekit)",
            plan.deploy / "venv" / "bin" / "jupyterhub-singleuser": "the students' servers (make deploy)",
            plan.deploy / "node_modules" / ".bin" / "configurable-http-proxy": "the hub's proxy (make deploy)",
        }

    def check(self, plan: Plan) -> None:
        from gradekit.errors import UsageError

        if plan.login and plan.login not in self.logins:
            raise UsageError(
                f"the shape {self.name} takes the login{'s' if len(self.logins) > 1 else ''} "
                f"{', '.join(self.logins)}, not {plan.login}"
            )
        course_exchange = str(getattr(plan.course.settings, "exchange", "") or "filesystem")  # type: ignore[attr-defined]
        if self.exchange == "filesystem" and course_exchange == "hub":
            raise UsageError(
                f"the shape {self.name} uses nbgrader's exchange folders, but this course is on the hub exchange "
                '(c.Gradekit.exchange = "hub"): give --shape one-account, docker or kubernetes'
            )
        if self.exchange == "hub":
            self._check_hub_course(plan)
        check(plan, self.needed(plan))

    def course_lines(self, plan: Plan) -> list[str]:
        """What the course's nbgrader_config.py lacks to be on this shape's hub exchange, one setting a line."""
        from gradekit.exchange.hub.course import settings_of

        course_exchange = str(getattr(plan.course.settings, "exchange", "") or "filesystem")  # type: ignore[attr-defined]
        settings = settings_of(plan.course)
        missing = []
        if course_exchange != "hub":
            missing.append('c.Gradekit.exchange = "hub"')
        if not settings.get("url"):
            missing.append(f'c.GradekitHubExchange.url = "{self.course_url(plan)}"')
        if not settings.get("token_file"):
            missing.append('c.GradekitHubExchange.token_file = ".gradekit/hub-token"  # 0600, made by hub-config')
        return missing

    def add_course_lines(self, plan: Plan) -> list[str]:
        """``course_lines`` added to the course's nbgrader_config.py (hub-config --write): one line for the admin."""
        missing = self.course_lines(plan) if self.exchange == "hub" else []
        if not missing:
            return []
        config = plan.root / "nbgrader_config.py"
        with open(config, "a", encoding="utf-8") as fh:
            fh.write(f"\n# the hub exchange (gradekit hub-config --shape {self.name})\n" + "\n".join(missing) + "\n")
        return [f"{config}: the hub exchange's settings added ({len(missing)} line(s))"]

    def _check_hub_course(self, plan: Plan) -> None:
        from gradekit.errors import UsageError

        missing = self.course_lines(plan)
        if missing:
            raise UsageError(
                f"the shape {self.name} runs the hub exchange: add to the course's nbgrader_config.py (--write adds "
                "them): " + "; ".join(missing)
            )

    def students_url(self, plan: Plan) -> str:
        """Where the students' servers (and the instructors') reach the hub exchange."""
        return plan.exchange_url

    def course_url(self, plan: Plan) -> str:
        """Where the course's commands reach it (the course's c.GradekitHubExchange.url, suggested)."""
        return plan.exchange_url

    def prepare(self, plan: Plan) -> None:
        """Before the config is written: make what its text reads (the services' tokens)."""

    def text(self, plan: Plan) -> str:
        raise NotImplementedError

    def files(self, plan: Plan) -> dict[str, tuple[str, int]]:
        return {}

    def instructors_config(self, plan: Plan) -> str | None:
        """The instructors' servers' nbgrader_config.py (None: the students' settings folder, as it is)."""
        return None

    # -- writing the hub's folder -----------------------------------------------------------------
    def write(self, plan: Plan, text: str) -> list[str]:
        """The hub's folder (see the module's docstring); one line for each file or thing made."""
        from gradekit.handout.students import write_dir

        folder = plan.folder
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o755)  # the servers read students/ or instructors/ in it
        state = folder / "state"
        state.mkdir(exist_ok=True)
        os.chmod(state, 0o700)
        out = [str(state)]
        for name, (content, mode) in {self.main: (text, 0o600), **self.files(plan)}.items():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
            os.chmod(target, mode)
            out.append(str(target))
        url = self.students_url(plan) if self.exchange == "hub" else None
        made = write_dir(plan.course, folder / "students", url)
        out.append(f"{folder / 'students'}/: the students' servers' settings ({len(made)} files)")
        mine = self.instructors_config(plan)
        instructors = folder / "instructors"
        if mine is None:
            made = write_dir(plan.course, instructors, url)
            out.append(f"{instructors}/: the instructors' servers' settings ({len(made)} files)")
        else:
            instructors.mkdir(exist_ok=True)
            os.chmod(instructors, 0o755)
            (instructors / "nbgrader_config.py").write_text(mine)
            os.chmod(instructors / "nbgrader_config.py", 0o644)
            out.append(str(instructors / "nbgrader_config.py"))
        interfaces = folder / pieces.INTERFACES
        if not interfaces.exists():
            interfaces.write_text(
                "# which accounts get Notebook 7 instead of JupyterLab (read at each login): one row each\n"
                "account,interface\n"
            )
            os.chmod(interfaces, 0o600)
        out.append(str(interfaces))
        if self.exchange == "hub":
            out += self._token(plan)
        out += self.login(plan).write(plan)
        return out

    def _token(self, plan: Plan) -> list[str]:
        """The course's token (made the first time: .gradekit/hub-token, 0600), copied to the hub's state/."""
        from gradekit.exchange.hub.course import settings_of

        token = Path(plan.root, str(settings_of(plan.course)["token_file"]))
        out = []
        if not token.exists():
            make_token(token)
            out.append(f"{token}: the course's token, made (0600): the course's services and commands use it")
        copy = plan.folder / "state" / pieces.TOKEN_COPY
        shutil.copyfile(token, copy)
        os.chmod(copy, 0o600)
        return [*out, str(copy)]


def make_token(path: Path) -> str:
    """A new random hub token in ``path`` (0600, its folder 0700 when made)."""
    import secrets

    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    return token

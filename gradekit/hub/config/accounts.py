"""The shape ``accounts``: one machine, each student a Unix account, nbgrader's exchange folders.

PAM logs each person in with their Unix password and the local-process spawner runs each server
as that person's own account, in a home that is theirs alone (0700, made so at each login), with
umask 077: file modes keep students apart. The instructors' servers open the course in Formgrader
(the staff group reads it). The course's services -- gradekit serve, the grading page, the class
report -- are services the hub starts.
"""

from __future__ import annotations

from gradekit.hub.config import pieces
from gradekit.hub.config.plan import Plan, lit
from gradekit.hub.config.shape import Shape


class Accounts(Shape):
    name = "accounts"
    help = "one machine, each student a Unix account, nbgrader's exchange folders (PAM)"
    exchange = "filesystem"
    logins = ("pam", "lti")

    def text(self, plan: Plan) -> str:
        lines = [
            *pieces.head(plan, "", ["csv", "os", "pwd"]),
            "",
            *pieces.listen(plan),
            "",
            *self.login(plan).python(plan),
            "",
            *pieces.instructors(plan, False, self.login(plan)),
            "",
            "# each server runs as its own account, writes nothing another account can read (umask 077), in a",
            "# home that is its own (0700, made so at each login), with the course's settings for its kind",
            'c.JupyterHub.spawner_class = "localprocess"',
            *pieces.local_servers(),
            "",
            "",
            *pieces.interface_of(),
            "",
            "",
            "def pre_spawn_hook(spawner):",
            "    name = spawner.user.name",
            "    account = pwd.getpwnam(name)",
            "    home = os.stat(account.pw_dir)",
            "    if home.st_uid == account.pw_uid and home.st_mode & 0o077:",
            "        os.chmod(account.pw_dir, home.st_mode & 0o700)  # useradd -m makes it 0755 on Debian",
            *pieces.teaches(plan, self.login(plan)),
            '    settings = f"{HUB}/instructors" if teaches else f"{HUB}/students"',
            '    spawner.environment = {**spawner.environment, "JUPYTER_CONFIG_PATH": settings}',
            '    spawner.default_url = "/tree" if interface_of(name) == "notebook" else "/lab"',
            "    if teaches:  # Formgrader opens a course only below the server's root: /, opened at home",
            '        spawner.notebook_dir = "/"',
            '        spawner.args = [*spawner.args, f"--ContentsManager.preferred_dir={account.pw_dir}"]',
            "",
            "",
            "c.Spawner.pre_spawn_hook = pre_spawn_hook",
            "",
            *pieces.services(plan, False, self.login(plan)),
            "",
        ]
        return "\n".join(lines)

    def instructors_config(self, plan: Plan) -> str:
        """The nbgrader_config.py of the instructors' servers: Formgrader opens the course."""
        from gradekit.exchange.filesystem.layout import exchange_root

        course = plan.course
        factory = dict((course.config or {}).get("ExchangeFactory", {}))  # type: ignore[attr-defined]
        return "\n".join(
            [
                f"# nbgrader_config.py for the instructors of {plan.course_id} (written by `gradekit hub-config`): "
                "Formgrader",
                "# and the instructor's nbgrader open the course from any folder",
                "c = get_config()  # noqa: F821",
                f"c.CourseDirectory.root = {lit(str(plan.root))}",
                f"c.CourseDirectory.course_id = {lit(plan.course_id)}",
                f"c.CourseDirectory.db_url = {lit(course.db_url)}",  # type: ignore[attr-defined]
                f"c.Exchange.root = {lit(str(exchange_root(course)))}",
                *(f"c.ExchangeFactory.{step} = {lit(str(cls))}" for step, cls in factory.items()),
                "",
            ]
        )

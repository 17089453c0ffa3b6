"""A hub's spawner for one machine and one Unix account: each student's server in namespaces of its own.

What a container per student gives on Kubernetes or DockerSpawner, on a machine without them:
every server runs as the one account (``account``, ``jovyan`` in a container), inside bubblewrap,
where it sees

    its home        ``homes/<user>`` of the hub's machine, mounted at the account's home
                    (``/home/<account>``), and no other student's: the others are not mounted
    the system      /usr, /etc and the folders the hub names (``readable``: the students'
                    environment, their Jupyter settings), read-only
    its processes   a PID namespace of its own: /proc lists the server and its kernels alone, so
                    no classmate's process, command line or environment (JUPYTERHUB_API_TOKEN) is
                    there to read; IPC and hostname namespaces of its own too
    /tmp            a tmpfs of its own

and nothing of the course or of the hub (its database, its cookie secret, the exchange's store).
The network is the machine's: the hub and its proxy reach the server on loopback, and the server
reaches the hub exchange through the proxy, with its own token. The server dies with its
bubblewrap process; stopping one stops everything in its namespaces.

    c.JupyterHub.spawner_class = "gradekit.hub.spawner.NamespacedSpawner"
    c.NamespacedSpawner.account = "gkjovyan"
    c.NamespacedSpawner.homes = "/srv/jupyterhub-homes"        # 0700, the account's
    c.NamespacedSpawner.readable = ["/opt/gradekit", "/srv/jupyterhub/students"]

``gradekit hub-config --shape one-account`` writes these.
"""

from __future__ import annotations

import os
import pwd
import shutil

from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
from traitlets import List, Unicode

SYSTEM = ("/usr", "/etc")  # read-only, for every server; /bin, /lib... are links into /usr on Debian
LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class NamespacedSpawner(LocalProcessSpawner):
    """Every server as ``account``, each in bubblewrap namespaces of its own (see the module's docstring)."""

    account = Unicode("jovyan", help="The Unix account every server runs as").tag(config=True)
    homes = Unicode(
        "/srv/jupyterhub-homes", help="The folder of the students' homes: <homes>/<user>, the account's, 0700"
    ).tag(config=True)
    readable = List(Unicode(), help="Folders every server reads (read-only): the students' venv, settings").tag(
        config=True
    )
    bwrap = Unicode("", help="bubblewrap's path (default: bwrap on the hub's PATH, else /usr/bin/bwrap)").tag(
        config=True
    )

    @property
    def inside(self) -> str:
        """The home's path inside the server: the account's, as in a container."""
        return f"/home/{self.account}"

    @property
    def home(self) -> str:
        """The student's home on the machine."""
        return os.path.join(self.homes, self.user.name)

    def _make_home(self) -> None:
        entry = pwd.getpwnam(self.account)
        for folder in (self.homes, self.home):
            os.makedirs(folder, 0o700, exist_ok=True)
            os.chown(folder, entry.pw_uid, entry.pw_gid)
            os.chmod(folder, 0o700)

    def sandbox(self) -> list[str]:
        """bubblewrap's command line, up to the server's own command."""
        bwrap = self.bwrap or shutil.which("bwrap") or "/usr/bin/bwrap"
        argv = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        for path in SYSTEM:
            argv += ["--ro-bind", path, path]
        for link in LINKS:
            if os.path.islink(link):
                argv += ["--symlink", os.readlink(link), link]
            elif os.path.isdir(link):
                argv += ["--ro-bind", link, link]
        argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/home"]
        for path in self.readable:  # after the tmpfs: a folder below /tmp or /home stays seen
            argv += ["--ro-bind", path, path]
        argv += ["--bind", self.home, self.inside, "--chdir", self.inside, "--hostname", self.user.name]
        return argv

    async def start(self):
        """LocalProcessSpawner's start, its command run inside bubblewrap (``self.cmd`` is put back once
        the process is started: the start reads it before it first waits)."""
        self._make_home()
        command: list[str] = list(self.cmd or [])  # type: ignore[has-type]
        self.cmd = [*self.sandbox(), *command]
        try:
            return await super().start()
        finally:
            self.cmd = command

    def make_preexec_fn(self, name):
        return set_user_setuid(self.account, chdir=False)

    def user_env(self, env):
        env.update(USER=self.account, LOGNAME=self.account, HOME=self.inside, SHELL="/bin/bash")
        return env

    async def move_certs(self, paths):  # internal TLS is not used on one machine
        return paths

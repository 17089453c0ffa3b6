"""Benchmark: a deadline rush through the hub exchange, graded live by ``gradekit serve``.

A JupyterHub on loopback (the dummy authenticator, N users, default 100), the hub exchange as a
service of it (``gradekit hub-exchange``), and ``gradekit serve`` on a course whose exchange is the
hub's. Each student hands in R times (default 3: N x R hand-ins) at random moments within W
seconds (default 60), over HTTP with their own hub token, through the hub's proxy
(configurable-http-proxy) as every student's request goes, as the students' submit class does
(a zip, a key of its own that makes a retry the same hand-in, retried when no answer comes or the
proxy answers 502, 503 or 504 -- each such answer counted: the class's 5xx). For
every hand-in the latency is from the moment the service accepted it to the moment its feedback
is committed in the service's records -- from then on the student's own GET returns it -- both on
the service's clock, as its records say (no poll loads the machine being measured); at the end
every student fetches their feedback with their own token, and a hand-in whose page they do not
get counts as lost. Reported: p50, p95, max, the throughput, and how many were lost (no
feedback 60 s after the rush) or counted twice (two records for one key, two gradings of one).

Runs, side by side in one process (timings are noisy on a shared machine: the runs are
comparable with each other, not across days):
    sqlite        the exchange's records in SQLite
    sqlite, kill -9   the same rush, with ``gradekit serve`` killed (-9) at W/3 and the exchange
                  service at 2W/3, each started again at once (as the hub restarts its services)
    postgresql    the exchange's records on PostgreSQL (a server on loopback, tests/pgserver.py)
    flood         the sqlite rush while one more hub user floods the service through the proxy from
                  4 threads, each one kept-alive connection, for the whole window, with their own
                  token: hand-ins of an assignment not released to them (each a try: refused past
                  their rate) and reads of their feedback (refused past their reads a minute); the
                  class's figures are the targets, and its 5xx (none), the flooder's answers are
                  counted by status
``--runs`` picks some. Targets (issue 30, this project's 2-core machine): p50 <= 0.5 s, p95 <= 1 s,
nothing lost, nothing counted twice.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "tests"))
import run as bench  # noqa: E402
import serve as serve_bench  # noqa: E402

ASSIGNMENT = bench.ASSIGNMENT
NOTEBOOK = bench.nbr.NOTEBOOK
BIN = bench.BIN
COURSE = "transformers101"
SERVICE = "gradekit-exchange"

HUB_CONFIG = '''\
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = ["{chp}"]
c.JupyterHub.db_url = "sqlite:///{state}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{state}/jupyterhub_cookie_secret"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = set({users!r})
c.JupyterHub.custom_scopes = {{"{scope}": {{"description": "teaches {course}"}}}}
c.JupyterHub.load_roles = [
    {{"name": "instructors", "services": ["gradekit"], "scopes": ["{scope}", "access:services!service={service}"]}},
    {{"name": "user", "scopes": ["self", "access:services!service={service}"]}},
    {{"name": "bench", "services": ["bench"], "scopes": ["admin:users", "tokens"]}},
]
c.JupyterHub.services = [
    {{"name": "bench", "api_token": "{bench_token}"}},
    {{"name": "gradekit", "api_token": "{course_token}"}},
    {{"name": "{service}", "url": "http://127.0.0.1:{service_port}", "api_token": "{service_token}"}},
]
'''


def say(message: str) -> None:
    bench.say(message)


class Hub:
    """JupyterHub and the exchange service (run here, so that a run can kill -9 it and start it again)."""

    def __init__(self, work: Path, users: list[str], deploy: Path):
        import hubs

        from gradekit.web.auth import instructor_scope

        self.work = work
        self.ports = hubs.free_ports(4)
        port, hub_port, api_port, self.service_port = self.ports
        self.bench_token, self.course_token, self.service_token = (secrets.token_hex(16) for _ in range(3))
        config = HUB_CONFIG.format(
            port=port, hub_port=hub_port, api_port=api_port, chp=deploy / "node_modules/.bin/configurable-http-proxy",
            state=work / "hub", users=users, scope=instructor_scope(COURSE), course=COURSE, service=SERVICE,
            bench_token=self.bench_token, course_token=self.course_token, service_token=self.service_token,
            service_port=self.service_port)
        self.hub = hubs.Hub(work / "hub", config, hub_bin=BIN / "jupyterhub")
        self.hub.start()
        self.url = f"http://127.0.0.1:{port}"
        self.api = f"http://127.0.0.1:{hub_port}/hub/api"
        self.service_url = f"http://127.0.0.1:{self.service_port}/services/{SERVICE}/"
        self.proxied = f"{self.url}/services/{SERVICE}/"  # through the hub's proxy, as students and serve go
        self.exchange: subprocess.Popen | None = None

    def token(self, user: str) -> str:
        request = urllib.request.Request(f"{self.api}/users/{user}/tokens", data=b'{"note": "bench"}', method="POST",
                                         headers={"Authorization": f"token {self.bench_token}",
                                                  "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())["token"]

    def start_exchange(self, store: Path, db: str, log: Path) -> None:
        env = {**bench.ENV, "JUPYTERHUB_API_URL": self.api, "JUPYTERHUB_API_TOKEN": self.service_token,
               "JUPYTERHUB_SERVICE_NAME": SERVICE, "JUPYTERHUB_SERVICE_PREFIX": f"/services/{SERVICE}/",
               "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{self.service_port}",
               "JUPYTERHUB_CLIENT_ID": f"service-{SERVICE}"}
        self.exchange = subprocess.Popen(
            [str(BIN / "gradekit"), "hub-exchange", "--course-id", COURSE, "--store", str(store),
             *(["--db", db] if db else []), "--per-minute", "30"],
            env=env, stdout=open(log, "a"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.service_url + f"api/{COURSE}/ping", timeout=2)
            except urllib.error.HTTPError:
                return  # up: it answers (401 without a token)
            except OSError:
                if self.exchange.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the exchange did not start:\n{log.read_text()[-2000:]}") from None
                time.sleep(0.05)

    def kill_exchange(self) -> None:
        assert self.exchange is not None
        self.exchange.send_signal(signal.SIGKILL)
        self.exchange.wait(10)

    def stop_exchange(self) -> None:
        if self.exchange is not None and self.exchange.poll() is None:
            self.exchange.terminate()
            self.exchange.wait(30)

    def close(self) -> None:
        self.stop_exchange()
        self.hub.close()


def build(root: Path, n: int, hub: Hub) -> None:
    bench.empty_course(root, n)
    (root / ".gradekit").mkdir(exist_ok=True)
    (root / ".gradekit" / "hub-token").write_text(hub.course_token)
    with open(root / "nbgrader_config.py", "a") as fh:
        fh.write(f'\nc.Gradekit.exchange = "hub"\nc.GradekitHubExchange.url = "{hub.proxied}"\n'
                 'c.GradekitHubExchange.token_file = ".gradekit/hub-token"\n')
    bench.Gradekit("gradekit").timed(root, "generate.log", "generate", ASSIGNMENT)


class Serve:
    def __init__(self, root: Path, log: Path):
        self.root, self.log = root, log
        self.start()

    def start(self) -> None:
        with open(self.log, "a") as fh:
            fh.write("==== start ====\n")
        self.proc = subprocess.Popen([str(BIN / "gradekit"), "--course", str(self.root), "serve", ASSIGNMENT],
                                     env=bench.ENV, stdout=open(self.log, "a"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while self.log.read_text().count("serving ") < self.log.read_text().count("==== start"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the service did not start:\n{self.log.read_text()[-2000:]}")
            time.sleep(0.1)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(60)


def _seconds(stamp: str) -> float:
    import datetime as dt

    return dt.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f UTC").replace(tzinfo=dt.UTC).timestamp()


def _released(store: Path, db: str) -> dict[int, float]:
    """Hand-in number -> when the first of its feedback pages was committed (the service's clock)."""
    import sqlalchemy as sa

    from gradekit.exchange.hub.store import FEEDBACK, Store

    s = Store(store, db)
    try:
        with s.engine.connect() as conn:
            first = sa.func.min(FEEDBACK.c.released)
            rows = conn.execute(sa.select(FEEDBACK.c.handin, first).group_by(FEEDBACK.c.handin))
            return {number: _seconds(when) for number, when in rows}
    finally:
        s.close()


def _post(url: str, token: str, body: bytes, key: str, fives: list[int]) -> dict:
    """One hand-in, sent again (same key) while no answer comes or the proxy answers 502, 503 or 504 (each
    such answer noted in ``fives``), as the students' submit class does."""
    for _try in range(40):
        request = urllib.request.Request(url, data=body, method="POST",
                                         headers={"Authorization": f"token {token}", "X-Gradekit-Key": key})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            if exc.code < 500:
                raise
            fives.append(exc.code)
            time.sleep(0.25)
        except OSError:
            time.sleep(0.25)  # the service is being started again
    raise RuntimeError("the hand-in never got an answer")


FLOODER = "flooder"  # a hub user on no class list


def flood(hub: Hub, token: str, stop: threading.Event, codes: dict[int, int], lock: threading.Lock) -> None:
    """One thread of a student flooding the service through the proxy until ``stop``, on one kept-alive
    connection as a script's would be: a hand-in, then a read, again and again."""
    import requests

    handin = f"{hub.proxied}api/{COURSE}/handins/{ASSIGNMENT}"
    read = f"{hub.proxied}api/{COURSE}/feedback/{ASSIGNMENT}"
    http = requests.Session()
    auth = {"Authorization": f"token {token}"}
    while not stop.is_set():
        for method, url, body, headers in (
            ("POST", handin, b"PK" + secrets.token_bytes(2048), {**auth, "X-Gradekit-Key": secrets.token_hex(16)}),
            ("GET", read, None, auth),
        ):
            try:
                code = http.request(method, url, data=body, headers=headers, timeout=30).status_code
            except requests.RequestException:
                code = 0  # no answer (the service is being started again)
            with lock:
                codes[code] = codes.get(code, 0) + 1


def _forget_hand_ins(root: Path) -> None:
    """Each run on an exchange of its own, and a ledger of its own: a new store numbers its hand-ins from 1
    again, and the ledger keys a hand-in by its reference ("record 1 of the hub exchange"), so a ledger
    kept from the run before would take each new hand-in for an old one changed after it was handed in."""
    import shutil

    from gradekit.exchange.ledger import KEPT, LEDGER
    from gradekit.service.attempts import ATTEMPTS

    for path in root.joinpath(LEDGER).parent.glob(LEDGER.name + "*"):
        path.unlink()
    for folder in (root / ATTEMPTS, root / KEPT):
        shutil.rmtree(folder, ignore_errors=True)


def rush(root: Path, hub: Hub, tokens: dict[str, str], n: int, rounds: int, window: float, seed: int, label: str,
         db: str = "", kill: bool = False, flooder: str = "") -> dict:
    from gradekit.untrusted import pack_zip

    texts = serve_bench.notebooks(root, n, rounds)
    _forget_hand_ins(root)
    store = root.parent / f"store-{label.replace(' ', '-').replace(',', '')}"
    log = root.parent / f"exchange-{label.replace(' ', '-').replace(',', '')}.log"
    hub.start_exchange(store, db, log)
    subprocess.run([str(BIN / "gradekit"), "--course", str(root), "release", ASSIGNMENT, "--force"], env=bench.ENV,
                   check=True, capture_output=True)
    rng = random.Random(seed)
    plan = sorted((rng.uniform(0, window), student, r) for student in bench.student_ids(n) for r in range(rounds))
    serve_log = root.parent / f"serve-{label.replace(' ', '-').replace(',', '')}.log"
    serve = Serve(root, serve_log)
    handins = f"{hub.proxied}api/{COURSE}/handins/{ASSIGNMENT}"
    fives: list[int] = []  # the class's answers of 500 and more (the proxy's), each sent again
    accepted: dict[int, tuple[str, float]] = {}  # hand-in number -> (student, when it was accepted)
    seen: dict[int, float] = {}
    keys: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()
    errors: list[str] = []

    def hand_in(student: str, r: int) -> None:
        key = secrets.token_hex(16)
        body = pack_zip({f"{NOTEBOOK}.ipynb": texts[(student, r)].encode(),
                         "timestamp.txt": time.strftime("%Y-%m-%d %H:%M:%S.000000 UTC", time.gmtime()).encode()})
        try:
            meta = _post(handins, tokens[student], body, key, fives)
        except Exception as exc:  # noqa: BLE001 - counted as lost, said at the end
            errors.append(f"{student}: {exc}")
            return
        with lock:
            accepted[meta["id"]] = (student, time.monotonic())
            keys.append(key)

    def fetchable() -> None:
        """Every student asks once, with their own token, for their feedback: what it returns is fetchable."""
        for student in sorted({s for s, _ in accepted.values()}):
            request = urllib.request.Request(f"{hub.proxied}api/{COURSE}/feedback/{ASSIGNMENT}",
                                             headers={"Authorization": f"token {tokens[student]}"})
            with urllib.request.urlopen(request, timeout=60) as answer:
                for page in json.loads(answer.read())["feedback"]:
                    if page["id"] in accepted:
                        seen[page["id"]] = 0.0

    say(f"{label}: {len(plan)} hand-ins of {n} students within {window:g} s")
    kills = [(window / 3, "serve"), (2 * window / 3, "exchange")] if kill else []
    flood_codes: dict[int, int] = {}
    flooding = [threading.Thread(target=flood, args=(hub, flooder, stop, flood_codes, lock), daemon=True)
                for _ in range(4 if flooder else 0)]
    started = time.monotonic()
    pool = ThreadPoolExecutor(16)
    for thread in flooding:
        thread.start()
    try:
        for at, student, r in plan:
            while kills and time.monotonic() - started >= kills[0][0]:
                _, what = kills.pop(0)
                if what == "serve":
                    serve.kill()
                    serve.start()
                else:
                    hub.kill_exchange()
                    hub.start_exchange(store, db, log)
                say(f"{label}: killed {what} (-9) and started it again at {time.monotonic() - started:.1f} s")
            delay = at - (time.monotonic() - started)
            if delay > 0:
                time.sleep(delay)
            pool.submit(hand_in, student, r)
        pool.shutdown(wait=True)
        handed = time.monotonic() - started
        stop.set()  # the flood lasts the rush
        for thread in flooding:
            thread.join(60)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until every accepted hand-in has its feedback in the store
            if len(_released(store, db)) >= len(accepted):
                break
            time.sleep(0.2)
        finished = time.monotonic() - started
        fetchable()
    finally:
        stop.set()
        serve.stop()
        hub.stop_exchange()
    from gradekit.course import Course
    from gradekit.exchange.hub.course import number_ref
    from gradekit.exchange.hub.store import Store
    from gradekit.exchange.ledger import Ledger

    records = Store(store, db).handins(COURSE)
    released = _released(store, db)
    # accepted (the service's clock when it took the hand-in in) to fetchable (its feedback committed)
    latencies = sorted(released[r.id] - _seconds(r.received) for r in records if r.id in released and r.id in seen)
    per_key: dict[str, int] = {}
    for record in records:
        per_key[record.key] = per_key.get(record.key, 0) + 1
    refs = {number_ref(record.id) for record in records}
    with Ledger(Course.load(root)) as ledger:
        entries = [e for e in ledger.entries(ASSIGNMENT) if e.ref in refs]
    numbers = [(e.student, e.number) for e in entries]  # hand-in numbers, each given once
    graded = [line.split(" graded ", 1)[1].split(":")[0] for line in serve_log.read_text().splitlines()
              if " graded " in line]
    q = statistics.quantiles(latencies, n=100) if len(latencies) >= 2 else latencies * 100
    return {"label": label, "hand_ins": len(plan), "accepted": len(accepted), "records": len(records),
            "fetchable": len(latencies), "lost": len(plan) - len(latencies),
            # two records of one key in the exchange, two ledger entries of one hand-in or of one
            # hand-in number
            "counted_twice": sum(c - 1 for c in per_key.values()) + (len(entries) - len(refs))
            + (len(numbers) - len(set(numbers))),
            "graded": len(graded), "graded_again": len(graded) - len(set(graded)),
            "p50": statistics.median(latencies) if latencies else None,
            "p95": q[94] if latencies else None, "max": latencies[-1] if latencies else None,
            "handed_in_within": handed, "all_fetchable_after": finished,
            "throughput": len(latencies) / finished if finished else 0.0, "errors": errors[:5],
            "flood": {str(code): count for code, count in sorted(flood_codes.items())},
            "class_5xx": len(fives), "serve_waited": sum(" waiting: " in line
                                                         for line in serve_log.read_text().splitlines())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", default="sqlite,kill,flood,postgresql",
                        help="which runs: sqlite, kill, flood, postgresql")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (the logs of serve and the exchange)")
    parser.add_argument("--deploy", default=os.environ.get("GRADEKIT_DEPLOY", "/opt/gradekit"),
                        help="make deploy's folder (configurable-http-proxy)")
    args = parser.parse_args(argv)
    out = [f"gradekit hub exchange benchmark, {time.strftime('%Y-%m-%d %H:%M:%S')}, git {bench.git_head()}",
           f"machine: {len(os.sched_getaffinity(0))} core(s); at start: {bench.load()}"]
    wanted = args.runs.split(",")
    runs = []
    import contextlib

    with (contextlib.nullcontext(args.keep) if args.keep else tempfile.TemporaryDirectory(
            prefix="gradekit-bench-hub-")) as tmp:
        work = Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        users = bench.student_ids(args.students)
        hub = Hub(work, [*users, FLOODER], Path(args.deploy))
        pg = None
        try:
            root = work / "course"
            build(root, args.students, hub)
            tokens = {u: hub.token(u) for u in users}
            if "sqlite" in wanted:
                runs.append(rush(root, hub, tokens, args.students, args.rounds, args.window, args.seed, "sqlite"))
            if "kill" in wanted:
                runs.append(rush(root, hub, tokens, args.students, args.rounds, args.window, args.seed + 1,
                                 "sqlite, kill -9", kill=True))
            if "flood" in wanted:
                runs.append(rush(root, hub, tokens, args.students, args.rounds, args.window, args.seed + 3,
                                 "sqlite, one floods", flooder=hub.token(FLOODER)))
            if "postgresql" in wanted:
                from pgserver import PostgresServer

                pg = PostgresServer().start()
                runs.append(rush(root, hub, tokens, args.students, args.rounds, args.window, args.seed + 2,
                                 "postgresql", db=pg.createdb("exchange")))
        finally:
            hub.close()
            if pg is not None:
                pg.stop()
    rows = [[r["label"], f"{r['hand_ins']} in {r['handed_in_within']:.0f} s", str(r["lost"]), str(r["counted_twice"]),
             str(r["graded_again"]), str(r["class_5xx"]),
             f"{r['p50']:.2f} s" if r["p50"] is not None else "-", f"{r['p95']:.2f} s" if r["p95"] is not None else "-",
             f"{r['max']:.2f} s" if r["max"] is not None else "-", f"{r['throughput']:.1f}/s"] for r in runs]
    bench.table(["run", "hand-ins", "lost", "counted twice", "graded again", "the class's 5xx", "p50", "p95", "max",
                 "throughput"], rows, out)
    ok = all(r["lost"] == 0 and r["counted_twice"] == 0 for r in runs) and all(
        r["class_5xx"] == 0 for r in runs if "kill" not in r["label"]) and all(
        r["p50"] is not None and r["p50"] <= 0.5 and r["p95"] <= 1 for r in runs if "kill" not in r["label"])
    for r in runs:
        if r["flood"]:
            answered = sum(c for code, c in r["flood"].items() if code != "0")
            out.append(f"{r['label']}: the flooder's {sum(r['flood'].values())} requests in "
                       f"{r['handed_in_within']:.0f} s ({answered / max(r['handed_in_within'], 1):.0f}/s answered), "
                       "by status: " + ", ".join(f"{code}: {c}" for code, c in r["flood"].items()))
    out.append("targets (p50 <= 0.5 s, p95 <= 1 s and no 5xx to the class without kills; nothing lost, nothing "
               "counted twice): "
               f"{'met' if ok else 'NOT met'}")
    out.append(f"at the end: {bench.load()}")
    text = "\n".join(out)
    print(text)
    (HERE / "out").mkdir(exist_ok=True)
    (HERE / "out" / "hub.txt").write_text(text + "\n" + json.dumps(runs, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""``gradekit lti``: the course as an LTI 1.3 tool -- its platform, keys, registration data, roster,
the scores sent to the LMS (status, sync) and the hub service (serve). See docs/admin/lti.md."""

from __future__ import annotations

import json
import sys

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser("lti", help="the course inside an LMS (LTI 1.3): launch, roster, deep linking, grades back")
    verbs = p.add_subparsers(dest="lti_command", required=True)

    plat = verbs.add_parser("platform", help="register the LMS: what it gave when the tool was added")
    plat.add_argument("--issuer", required=True)
    plat.add_argument("--client-id", required=True)
    plat.add_argument("--deployment", action="append", required=True, help="a deployment id (repeat for more)")
    plat.add_argument("--auth-url", required=True, help="the platform's OIDC authorization endpoint")
    plat.add_argument("--token-url", required=True, help="the platform's OAuth2 token endpoint")
    plat.add_argument("--jwks-url", required=True, help="the platform's public keyset URL")
    plat.add_argument("--hub-url", required=True, help="the hub's public address, e.g. https://hub.example.edu/")
    plat.add_argument(
        "--username-claim",
        default="email",
        help="the claim that is the username: email (default), sub, preferred_username, custom_<name>",
    )
    plat.set_defaults(run=_platform)

    k = verbs.add_parser(
        "keys", help="print the tool's JWKS (--rotate: a new signing key; the last one stays published)"
    )
    k.add_argument("--rotate", action="store_true")
    k.set_defaults(run=_keys)

    t = verbs.add_parser("tool-config", help="what the LMS asks for to register the tool")
    t.add_argument(
        "--lms",
        required=True,
        choices=("canvas", "moodle", "brightspace", "blackboard", "other"),
        help="other: any other LTI 1.3 platform, the spec's names for each field",
    )
    t.add_argument("--title", default="")
    t.add_argument("--hub-url", default="", help="the hub's public address (default: the registered platform's)")
    t.set_defaults(run=_tool_config)

    r = verbs.add_parser("roster", help="the LMS course's members (NRPS) into the gradebook and the hub")
    r.add_argument("--hub-api", default="", help="the hub's API URL (default: $JUPYTERHUB_API_URL)")
    r.set_defaults(run=_roster)

    s = verbs.add_parser("status", help="the scores pending, failed (and why) and sent")
    s.set_defaults(run=_status)

    y = verbs.add_parser("sync", help="reconcile now and send what is due, the failed ones again")
    y.add_argument("assignment", nargs="*", help="(default: every assignment in the gradebook)")
    y.set_defaults(run=_sync)

    v = verbs.add_parser("serve", help="the hub service: JWKS, the deep-linking picker, and the sender")
    v.add_argument("assignment", nargs="*", help="(default: every assignment in the gradebook)")
    v.add_argument("--scan", type=float, default=30.0, help="seconds between scans of the gradebook (default 30)")
    v.add_argument("--no-web", action="store_true", help="the sender alone, no web service")
    v.add_argument("--retry-first", type=float, default=1.0, help="seconds before the first retry (default 1)")
    v.add_argument("--retry-cap", type=float, default=60.0, help="the longest wait between retries (default 60)")
    v.set_defaults(run=_serve)


def _assignments(course, given: list[str]) -> list[str]:
    from gradekit.gradebook import read

    return list(given) or read.registered_assignments(course)


def _platform(args) -> int:
    from gradekit.lti import keys
    from gradekit.lti.platform import Platform, save

    course = course_of(args)
    platform = Platform(
        issuer=args.issuer,
        client_id=args.client_id,
        deployment_ids=tuple(args.deployment),
        auth_url=args.auth_url,
        token_url=args.token_url,
        jwks_url=args.jwks_url,
        hub_url=args.hub_url,
        username_claim=args.username_claim,
    )
    path = save(course, platform)
    key = keys.current(course)
    print(
        f"{path}: {platform.issuer}, client {platform.client_id}, deployment(s) {', '.join(platform.deployment_ids)}; "
        f"signing key {key.kid}"
    )
    return 0


def _keys(args) -> int:
    from gradekit.lti import keys

    course = course_of(args)
    if args.rotate:
        key = keys.rotate(course)
        print(f"signing with {key.kid} from now on", file=sys.stderr)
    print(json.dumps(keys.jwks(course), indent=2))
    return 0


def _tool_config(args) -> int:
    from gradekit.lti.platform import ToolURLs, load
    from gradekit.lti.registration import fields

    course = course_of(args)
    if args.hub_url:  # before the LMS gave anything: what it asks for first
        urls, claim = ToolURLs(args.hub_url), "custom_username"
    else:
        platform = load(course)
        urls, claim = platform.urls, platform.username_claim
    data = fields(args.lms, urls, args.title or course.course_id, claim)
    if args.lms == "canvas":
        print(json.dumps(data, indent=2))
    else:
        width = max(len(k) for k in data)
        for name, value in data.items():
            print(f"{name:<{width}}  {value}")
    return 0


def _roster(args) -> int:
    import os
    from pathlib import Path

    from gradekit.errors import LMSUnavailable
    from gradekit.lti import launches, roster
    from gradekit.lti.platform import load
    from gradekit.lti.services import Connector

    course = course_of(args)
    platform = load(course)
    launches.ingest(course)
    api = args.hub_api or os.environ.get("JUPYTERHUB_API_URL", "")
    token = os.environ.get("JUPYTERHUB_API_TOKEN", "")
    if not token and (course.root / ".gradekit" / "hub-token").is_file():
        token = Path(course.root / ".gradekit" / "hub-token").read_text().strip()
    try:
        done = roster.sync(course, platform, Connector(course, platform), hub=(api, token) if api and token else None)
    except LMSUnavailable as exc:
        raise type(exc)(f"the roster was not read: {exc}", exc.status) from None
    print(
        f"{len(done.learners)} student(s) in the gradebook, {len(done.teachers)} instructor(s)"
        + (f"; dropped (kept with their grades): {', '.join(done.dropped)}" if done.dropped else "")
        + (f"; {done.unnamed} with no username until their first launch" if done.unnamed else "")
        + (
            f"; {done.hub}"
            if done.hub
            else "; the hub's user list not updated (no --hub-api: the LMS's launches let people in without it)"
        )
    )
    if done.new:  # their own notebooks: generate and release for them (docs/admin/lti.md)
        named = " ".join(f"--student {s}" for s in done.new)
        print(
            f"new in the gradebook: {', '.join(done.new)}; their notebooks: "
            f"gradekit generate ASSIGNMENT {named} && gradekit release ASSIGNMENT {named}"
        )
    return 0


def _status(args) -> int:
    from gradekit.lti.status import lines

    for line in lines(course_of(args)):
        print(line)
    return 0


def _sync(args) -> int:
    import contextlib

    from gradekit.changes import poke
    from gradekit.errors import UsageError
    from gradekit.lti import launches, reconcile, sender, store
    from gradekit.lti.platform import load
    from gradekit.lti.services import Connector

    course = course_of(args)
    platform = load(course)
    launches.ingest(course)
    o = store.outbox.c
    with store.engine(course).begin() as conn:  # the failed ones again, and what waits on a backoff: now
        again = conn.execute(
            store.outbox.update().where(o.state == "failed").values(state="pending", next_at=0.0, tries=0)
        ).rowcount
        conn.execute(store.outbox.update().where(o.state == "pending").values(next_at=0.0))
    done = reconcile.reconcile(course, _assignments(course, args.assignment))
    unmapped = f"; no LMS user for: {', '.join(done.unmapped)}" if done.unmapped else ""
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(course.lock("lti-send"))
        except UsageError:  # gradekit lti serve runs: it sends them, woken now
            poke(course)
            print(
                f"{done.queued} new score(s), {again} failed one(s) queued again: the running sender sends them"
                + unmapped
            )
            return 0
        result = sender.send_due(course, Connector(course, platform))
    for line in result.lines:
        print(line, file=sys.stderr)
    print(f"{result.sent} score(s) sent, {result.retrying} to try again, {result.failed} refused" + unmapped)
    return 1 if result.failed else 0


def _serve(args) -> int:
    from gradekit.lti import web
    from gradekit.lti.loop import Loop
    from gradekit.lti.platform import load
    from gradekit.lti.sender import Backoff

    course = course_of(args)
    platform = load(course)
    assignments = _assignments(course, args.assignment)
    loop = Loop(course, platform, assignments, scan=args.scan, backoff=Backoff(args.retry_first, args.retry_cap))
    with course.lock("lti-send"):
        if args.no_web:
            import signal

            signal.signal(signal.SIGTERM, lambda *_: loop.stop.set())
            loop.say(f"LTI sender of {course.course_id}: {', '.join(assignments)}")
            try:
                loop.run()
            except KeyboardInterrupt:
                pass
            return 0
        web.serve(course, platform, assignments, loop, say=loop.say)
    return 0

"""LTI 1.3: the course inside the LMS -- launch, roster, deep linking, and every grade sent back.

The modules, as the data flow::

    platform.py     the LMS the course is registered with (issuer, client id, deployments, its URLs),
                    and the tool's own addresses; .gradekit/lti/platform.json
    keys.py         the tool's key pair (0600, rotatable) and its JWKS
    claims.py       the LTI claim names, and what a launch's roles make of a person
    login.py        the hub's login: jupyterhub-ltiauthenticator's LTI13Authenticator, with the checks
                    it lacks (deployment, azp, exp, nonce replay), LTI roles to the instructors group,
                    each launch recorded (spool.py); imported by the hub, from the students' venv
    spool.py        what a launch leaves for the course: one JSON file a launch (stdlib only)
    store.py        the course's LTI tables in the course's database (SQLite or PostgreSQL): the LMS
                    courses (contexts), their people, line items, the outbox, what was last wanted
    want.py         what the LMS should hold = f(gradebook, the assignment's policy, now)
    reconcile.py    wanted vs last wanted: an outbox row for each difference
    services.py     the LMS's services (AGS, NRPS) through pylti1p3next: tokens, line items, scores
    sender.py       the outbox sent with backoff; the original timestamp on a resend
    roster.py       NRPS into the gradebook and the hub
    deeplink.py     the picker's answer: a line item found or made, and the signed response
    registration.py what each LMS asks for to register the tool (Canvas JSON, Moodle, Brightspace,
                    Blackboard)
    hubconf.py      the LTI login block of ``gradekit hub-config``
    web.py          ``gradekit lti serve``: the hub service (JWKS, the picker) and the sender's loop
    loop.py         the sender's loop: woken by gradekit.changes, a scan, each due date
    status.py       gradekit lti status
    launches.py     the hub's recorded launches into the course's tables
"""

# The course directory of the self-attention course. nbgrader and gradekit both read this.
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "transformers101"
# The gradebook. SQLite by default; a PostgreSQL URL works too, e.g.
#   c.CourseDirectory.db_url = "postgresql://user@/gradebook?host=/run/postgresql"
c.CourseDirectory.db_url = "sqlite:///gradebook.db"

# The nbgrader exchange with one notebook per student (see gradekit/handout/). `gradekit release
# self_attention` puts each student's own variant in <Exchange.root>/<course_id>/outbound/self_attention/
# <student>/, readable only by that student's Unix account; with these lines the stock nbgrader commands
# -- fetch_assignment, list, submit, collect, release_feedback, fetch_feedback -- hand each student only
# their own notebook and feedback, and collect counts a submission for the account that handed it in, at
# the time it really arrived. Students get the same lines (`gradekit student-config` prints their file).
c.ExchangeFactory.release_assignment = "gradekit.exchange.filesystem.release.GradekitReleaseAssignment"
c.ExchangeFactory.fetch_assignment = "gradekit.exchange.filesystem.student.GradekitFetchAssignment"
c.ExchangeFactory.submit = "gradekit.exchange.filesystem.student.GradekitSubmit"
c.ExchangeFactory.list = "gradekit.exchange.filesystem.student.GradekitList"
c.ExchangeFactory.collect = "gradekit.exchange.filesystem.collect.GradekitCollect"
c.ExchangeFactory.release_feedback = "gradekit.service.nbgrader_feedback.GradekitReleaseFeedback"
c.ExchangeFactory.fetch_feedback = "gradekit.exchange.filesystem.student.GradekitFetchFeedback"
# Where the exchange lives (nbgrader's default: /usr/local/share/nbgrader/exchange).
# c.Exchange.root = "/srv/nbgrader/exchange"

# Late submissions. Set a due date with
#   nbgrader db assignment add self_attention --duedate="2026-12-01 23:59:00 UTC"
# and `gradekit autograde` records nbgrader's late penalty (nbgrader export's
# late_submission_penalty column): 'none' (nbgrader's default) or 'zero'; or
# your own LateSubmissionPlugin subclass via c.AssignLatePenalties.plugin_class.
# c.LateSubmissionPlugin.penalty_method = "zero"

# gradekit's own settings for the whole course (the values below are the defaults). Limits for student code:
# c.Gradekit.cell_timeout = 20.0      # seconds to run all of a notebook's cells
# c.Gradekit.call_timeout = 10.0      # seconds for one call of a grader into the student's code
# c.Gradekit.notebook_budget = 120.0  # seconds for all the graders' calls on one notebook
# c.Gradekit.memory = 1536            # MiB of address space
# c.Gradekit.cpu_seconds = 60         # CPU seconds per notebook
# c.Gradekit.processes = 64           # processes at once
# c.Gradekit.tmpfs = 64               # MiB of the sandbox's private /tmp
# Live grading (gradekit serve):
# c.Gradekit.attempts = 0            # graded hand-ins per student and assignment (0: no limit)
# c.Gradekit.min_interval = 0        # seconds between a student's graded hand-ins
# c.Gradekit.counts = "last"         # the attempt that counts: "last" or "best"
# c.Gradekit.before_due = "full"     # before the due date: "full" feedback, "score" only, "received" only
# Each assignment overrides these in its own source/<assignment>/assignment.toml, where it also names its
# multiple-choice cells and what stays hidden until the due date (every answer that is a value is, by default).
#
# A free-text answer left as "YOUR ANSWER HERE" gets 0 automatically instead of waiting:
# c.Gradekit.unanswered_free_text_zero = False
# Extra grading stages (import paths; see gradekit/grading/stages.py):
# from gradekit.grading import DEFAULT_STAGES
# c.Gradekit.stages = DEFAULT_STAGES[:4] + ["mycourse.stages.Penalty"] + DEFAULT_STAGES[4:]

# The course directory of the self-attention course. nbgrader and gradekit both read this.
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "transformers101"
# The gradebook. SQLite by default; a PostgreSQL URL works too, e.g.
#   c.CourseDirectory.db_url = "postgresql://user@/gradebook?host=/run/postgresql"
c.CourseDirectory.db_url = "sqlite:///gradebook.db"

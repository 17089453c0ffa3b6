"""``gradekit doctor``: is this course's deployment private and sound?

diagnose.py   every check, one line per problem with its fix
isolation.py  the students' servers kept apart where they all run as one account
"""

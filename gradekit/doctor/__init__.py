"""``gradekit doctor``: is this course's deployment private and sound? One line per problem, with its fix.

diagnose.py   every check the course's exchange calls for, in order
access.py     who can read a path (another account, a student through a group, an account asked
              as itself); a Problem and its line
course.py     the course's private files, and the exchange's folders and their modes
students.py   the students' Python (it imports gradekit's exchange classes, holds nothing of the
              course's), the collect class, every roster account's home
hub.py        the hub's config (its database, cookie secret, umask, TLS, allowed users), and the hub
              exchange (the service, the course's token, what the students' account reads)
isolation.py  the students' servers kept apart where they all run as one account
"""

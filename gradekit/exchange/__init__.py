"""The exchange: a hand-in from its arrival to its acceptance, releases out and feedback back.

base.py        the interface every exchange keeps: releases out, hand-ins in (who and when),
               feedback back, what a student may list
exchanges.py   the course's exchange, by its setting (c.Gradekit.exchange)
identity.py    accounts and hub users to student ids and back
ledger.py      the instructor's record of every hand-in: who, when, what, its number, its receipt
receipts.py    a signed receipt for every hand-in
take_in.py     gradekit collect: the exchange's hand-ins into submitted/, whichever the exchange
filesystem/    nbgrader's exchange folders, with gradekit's modes and its judge of hand-ins
hub/           the hub exchange: its wire, the service (server side), the course's client and the
               students' commands
"""

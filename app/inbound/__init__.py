"""Play by replying (issue 11): a move is a reply to the turn mail.

Two ways in, one path: the SMTP receiver (``receiver``, ``python -m
app.inbound``) and ``POST /inbound/mail`` (``app.web.inbound``) both store the
raw message in the inbox table (``models``, ``inbox``) and nothing else; the
worker (``worker``) applies stored rows, once each, through
``services.submit_action(..., source="mail")`` and answers through the outbox.
``address`` signs the reply address of a seat and step, ``commands`` reads a
command line, ``reading`` gets that line out of a real mail, ``menu`` lists
the commands of a decision for the turn mail.
"""

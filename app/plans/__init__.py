"""A seat's plans and standing orders as stored (issue 35): the ``plan`` table and the
words they left for the seat's next mail. Below ``mail`` (which tells of them) and
``services`` (which applies them); the shapes and their logic are ``app.engine.plans``."""

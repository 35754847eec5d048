"""What each chapter shows, drawn from its figures' results: the figures (in the book's style), the derived
tables and the numbers the prose pastes (glued under the chapter's keys, e.g. ``fig4_alpha``). One module per
chapter group, as in `figures`; a chapter calls one function per figure, shows what it returns and asserts
the claims it reproduces on the returned values.

Each function returns a `types.SimpleNamespace` of the values its chapter goes on to use, including
``checked``: the claims of the registry it recorded (`claims.record`).
"""

"""Help texts written as prose.

An option's help is one line to oslo.config: its sample generator and
``--help`` wrap it themselves, and would keep any line break written into
it. A help longer than a line is written as a paragraph over indented lines
and folded back into that one line here.
"""


def paragraph(text):
    """``text`` with each run of white space (line breaks and the
    indentation after them included) made one space."""
    return ' '.join(text.split())

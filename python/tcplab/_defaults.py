"""Defaults shared by the analysis, the plots and the command line."""

CI_LEVEL = 0.95
"""The confidence level of every interval tcplab computes unless asked for
another (``ci=`` in Python, ``--ci`` on the command line): 95%. The
published studies use 90%, as their papers do (docs/studies.md)."""

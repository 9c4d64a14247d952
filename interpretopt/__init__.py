"""interpretopt: interpretable machine-learning methods written as optimization problems."""

__version__ = "0.1.0"

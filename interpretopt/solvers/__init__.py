"""interpretopt.solvers"""

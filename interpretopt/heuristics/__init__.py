"""interpretopt.heuristics"""

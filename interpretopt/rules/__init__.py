"""interpretopt.rules"""

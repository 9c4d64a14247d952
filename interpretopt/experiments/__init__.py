"""interpretopt.experiments"""

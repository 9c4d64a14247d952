"""interpretopt.evaluation"""

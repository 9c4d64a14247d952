"""interpretopt.blackbox"""

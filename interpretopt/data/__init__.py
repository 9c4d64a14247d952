"""interpretopt.data"""

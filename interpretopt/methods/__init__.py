"""interpretopt.methods"""

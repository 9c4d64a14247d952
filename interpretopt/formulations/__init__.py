"""interpretopt.formulations"""

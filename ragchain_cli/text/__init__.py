"""Text as the answer path reads it, below retrieve/ and answer/: words and stems, numbers, sentences,
citation markers, a model's refusals and preambles, and yes/no questions and replies.
"""

"""Research apart from the product: experiments, their tests and the code only they use."""

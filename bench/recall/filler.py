"""Talk unrelated to anything a user tells about themselves: what fills the long sessions around a fact.

Each topic has requests a user makes and sentences an assistant answers with; "{x}" and "{y}" take one of
the topic's words. A session of this talk runs to thousands of words, and a fact said in it is one turn
among them.
"""

from __future__ import annotations

import random

# topic: (requests, answer sentences, words for the slots)
TOPICS = {
    "programming": (
        (
            "Can you explain how {x} works in Python?",
            "My script fails with an error about {x}, any idea why?",
            "What is the cleanest way to handle {x} in a large codebase?",
            "Should I use {x} or {y} for this?",
        ),
        (
            "The short answer is that {x} keeps its state between calls, so the second call sees what the first left behind.",
            "A common mistake is to mix {x} with {y} in the same function, which makes the control flow hard to follow.",
            "You can reproduce the problem with a minimal example of a dozen lines, and that usually shows the cause.",
            "The standard library already covers {x}, so there is no need for an extra dependency.",
            "Type hints will not change how {x} behaves at runtime, but they make the intent explicit to readers.",
            "If performance matters, measure first: the profiler often shows that {y} dominates, not {x}.",
            "Write a test that fails before the fix and passes after it, so the behaviour stays pinned down.",
            "Consider splitting the module so that {x} lives apart from the code that formats output.",
        ),
        (
            "generators",
            "decorators",
            "context managers",
            "asyncio",
            "dataclasses",
            "list comprehensions",
            "closures",
            "exceptions",
            "iterators",
            "type hints",
        ),
    ),
    "history": (
        (
            "Tell me about {x}.",
            "Why did {x} matter so much at the time?",
            "How did {x} compare with {y}?",
        ),
        (
            "Historians still debate the causes of {x}, but trade and taxation played a large part.",
            "Contemporary accounts of {x} were written mostly by people with a stake in the outcome.",
            "The consequences of {y} were felt for generations, especially in the countryside.",
            "Archaeological finds have changed the picture of {x} considerably over the last few decades.",
            "Much of what is taught about {x} comes from a handful of surviving chronicles.",
            "The economic shock that followed {y} reshaped the politics of the whole region.",
            "Maps from the period show how little the cartographers knew about the interior.",
        ),
        (
            "the Hanseatic League",
            "the Silk Road",
            "the printing press",
            "the Black Death",
            "the Congress of Vienna",
            "the Meiji Restoration",
            "the fall of Constantinople",
            "the Industrial Revolution",
        ),
    ),
    "physics": (
        (
            "Could you give me an intuition for {x}?",
            "What is the difference between {x} and {y}?",
            "Is there a simple experiment that shows {x}?",
        ),
        (
            "Think of {x} as a bookkeeping rule: whatever goes in must come out somewhere.",
            "The equations for {x} look intimidating, but most terms vanish in everyday situations.",
            "A pendulum is a good model here because its motion is easy to measure with a phone.",
            "Engineers rely on {y} every day without thinking about the underlying theory.",
            "The confusion between {x} and {y} comes from the fact that both are measured in similar units.",
            "At very small scales the classical picture of {x} breaks down and quantum effects take over.",
            "Friction is usually the term that textbook problems quietly ignore.",
        ),
        (
            "entropy",
            "momentum",
            "inertia",
            "refraction",
            "resonance",
            "torque",
            "buoyancy",
            "electric potential",
            "angular momentum",
        ),
    ),
    "spreadsheets": (
        (
            "How do I use {x} in a spreadsheet?",
            "My {x} formula returns an error, what am I doing wrong?",
            "Is {x} faster than {y} on big sheets?",
        ),
        (
            "Lock the reference with dollar signs so the range does not shift when you copy the formula down.",
            "{x} expects the lookup column to be the first one in the range you pass it.",
            "For large sheets, {y} recalculates less often and keeps the file responsive.",
            "Named ranges make formulas such as {x} much easier to read a month later.",
            "Check for trailing spaces in the cells, they are a frequent cause of failed matches.",
            "A pivot table might answer the question without any formula at all.",
            "Conditional formatting can highlight the rows where {x} finds nothing.",
        ),
        (
            "VLOOKUP",
            "INDEX and MATCH",
            "SUMIFS",
            "pivot tables",
            "array formulas",
            "XLOOKUP",
            "COUNTIFS",
            "data validation",
        ),
    ),
    "writing": (
        (
            "Can you tighten this paragraph about {x}?",
            "How should I structure an essay on {x}?",
            "Is it better to open with {x} or with {y}?",
        ),
        (
            "Lead with the claim, then give the evidence, and keep each paragraph to one idea.",
            "Cut the adverbs first; most of them weaken the verb they sit beside.",
            "A concrete example about {x} will persuade more readers than a general statement.",
            "The transition between the second and third sections feels abrupt, so add a bridging sentence.",
            "Readers skim, so the first sentence of each paragraph should carry its point.",
            "Consider ending with a question about {y} that the reader can carry away.",
            "Passive constructions hide who did what, which matters in an argument about {x}.",
        ),
        (
            "urban planning",
            "renewable energy",
            "remote learning",
            "public libraries",
            "ocean plastics",
            "open source software",
            "local journalism",
        ),
    ),
    "gardening_science": (
        (
            "How does {x} affect soil?",
            "What is the science behind {x}?",
            "Why do farmers care about {x} and {y}?",
        ),
        (
            "Soil microbes break down organic matter slowly, and {x} speeds that process up.",
            "Nitrogen is usually the limiting nutrient, which is why {y} is so widely used.",
            "Crop rotation interrupts the life cycle of pests that specialise in one family of plants.",
            "Clay soils hold water well but drain poorly, the opposite of sandy soils.",
            "The effect of {x} depends heavily on the climate and the season.",
            "Mulch keeps moisture in and suppresses weeds, at the cost of slower warming in spring.",
            "Research plots have tracked {y} for more than a century in some places.",
        ),
        (
            "composting",
            "crop rotation",
            "cover crops",
            "nitrogen fixation",
            "soil acidity",
            "drip irrigation",
            "mycorrhizal fungi",
        ),
    ),
    "finance_concepts": (
        (
            "Explain {x} to me like I'm new to this.",
            "What are the risks of {x}?",
            "How is {x} different from {y}?",
        ),
        (
            "{x} spreads risk over time, so a single bad month matters less.",
            "Fees compound just as returns do, which is why low costs matter over decades.",
            "Inflation quietly erodes cash, so holding too much of it has a cost too.",
            "The tax treatment of {y} varies a lot between countries.",
            "Diversification does not remove risk, it removes the risk of one company failing.",
            "Bond prices move opposite to interest rates, which surprises many newcomers.",
            "An emergency fund comes before any of {x}, because selling in a downturn locks in losses.",
        ),
        (
            "index funds",
            "dollar cost averaging",
            "compound interest",
            "bond ladders",
            "expense ratios",
            "rebalancing",
            "capital gains",
        ),
    ),
    "astronomy": (
        (
            "What causes {x}?",
            "How far away is {x}, roughly?",
            "Can I see {x} without a telescope?",
        ),
        (
            "Light pollution is the main obstacle, so a dark site makes a huge difference.",
            "{x} was first described in detail by observers in the seventeenth century.",
            "The distances involved are so large that astronomers measure them in light years.",
            "Binoculars reveal far more than most people expect, especially along the band of the galaxy.",
            "The orbit of {y} is slightly elliptical, which changes its brightness over the year.",
            "Spectra tell us what {x} is made of, long before any probe gets there.",
            "Patience helps: eyes need about twenty minutes to adapt to the dark fully.",
        ),
        (
            "the rings of Saturn",
            "the Andromeda galaxy",
            "a lunar eclipse",
            "the Orion nebula",
            "meteor showers",
            "the phases of Venus",
            "sunspots",
        ),
    ),
}

# Said around a request, so that few requests are word for word the same.
OPENINGS = (
    "",
    "Quick question.",
    "Okay, next thing.",
    "Sorry to bother you again.",
    "Something I keep wondering about:",
    "Different topic.",
    "Back to this for a moment.",
    "I was reading about this earlier.",
)
CLOSINGS = (
    "",
    "Keep it short please.",
    "A detailed answer would help.",
    "Assume I know the basics.",
    "It is for a presentation.",
    "Explain it as you would to a beginner.",
    "Examples would be great.",
    "The official explanation confused me.",
    "No rush.",
    "My notes on this are a mess.",
)
ACKNOWLEDGEMENTS = (
    "Thanks for sharing that.",
    "Good to know, I will keep it in mind.",
    "That sounds like quite something.",
    "Noted.",
    "Glad you told me.",
)
FOLLOW_UPS = (
    "",
    "Anything else on your mind?",
    "Shall we get back to the earlier topic?",
    "Let me know if that changes.",
    "Want a reminder about it later?",
)


def _around(rng: random.Random, middle: str, before: tuple[str, ...], after: tuple[str, ...]) -> str:
    return " ".join(part for part in (rng.choice(before), middle, rng.choice(after)) if part)


def request(rng: random.Random, topic: str) -> str:
    requests, _, slots = TOPICS[topic]
    x, y = rng.sample(slots, 2)
    return _around(rng, rng.choice(requests).format(x=x, y=y), OPENINGS, CLOSINGS)


def acknowledgement(rng: random.Random) -> str:
    return _around(rng, rng.choice(ACKNOWLEDGEMENTS), ("",), FOLLOW_UPS)


def answer(rng: random.Random, topic: str, sentences: int) -> str:
    _, said, slots = TOPICS[topic]
    chosen = rng.sample(said, min(sentences, len(said)))
    return " ".join(line.format(x=rng.choice(slots), y=rng.choice(slots)) for line in chosen)

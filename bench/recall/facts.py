"""What users tell the agent, written here: each fact with the question that asks for it in other words.

Every question is a paraphrase of its statements: it shares no key word (words.stems) with any of them,
which tests/test_recall_evaluation.py checks for every value. "{v}" in a statement is the value a user
draws; values differ between users, so one user's answer is not another's.
"""

from __future__ import annotations


def table(text: str) -> tuple[tuple, ...]:
    """Rows of " | "-separated fields, one a line; the last field holds the values, " / "-separated."""
    rows = []
    for line in text.strip().splitlines():
        *fields, values = line.split(" | ")
        rows.append((*fields, tuple(values.split(" / "))))
    return tuple(rows)


# question | statement | values: a fact stated once, in one session.
SINGLE = table(
    """
What does my sibling do for a living? | My sister just got promoted, she is a {v} at the city hospital now. | nurse / radiologist / pharmacist / surgeon / midwife
Which breed is our family dog? | We picked up the puppy yesterday, a {v}, and the kids already adore him. | beagle / corgi / dachshund / labrador / whippet
What car do I drive? | Finally traded in the old hatchback, I'm now behind the wheel of a {v}. | Subaru Outback / Honda Civic / Mazda CX-5 / Toyota Prius / Volvo XC40
Where did I go to university? | Back when I was studying economics at {v}, I lived off instant noodles. | McGill / Edinburgh / Leiden / Kyoto / Melbourne
What is my partner's name? | My wife {v} surprised me with concert tickets tonight. | Ingrid / Priya / Sofia / Hannah / Mei
How old is my daughter? | We threw a party for Emma, she turned {v} on Sunday. | six / seven / nine / eleven / twelve
What am I allergic to? | I have to be careful at restaurants because {v} gives me hives. | shellfish / peanuts / sesame / kiwi / almonds
What language am I learning? | Three lessons a week of {v} now, the grammar is brutal. | Portuguese / Korean / Turkish / Polish / Greek
What is my favourite food? | Nothing beats a bowl of {v}, I could eat it every day. | ramen / paella / pho / lasagna / biryani
What is my blood type? | The clinic letter says I'm {v}, so I can donate plasma. | O negative / A positive / B negative / AB positive
Where was I born? | I grew up in {v} before my parents moved us abroad. | Valparaiso / Gdansk / Cork / Porto / Adelaide
What is my shoe size? | The boots came in EU {v} and they fit perfectly. | 42 / 39 / 44 / 38 / 41
What's my cat called? | Our kitten {v} knocked every plant off the windowsill. | Miso / Waffle / Tofu / Biscuit / Nori
What is my favourite film? | I've watched {v} maybe twenty times, never gets old. | Amelie / Heat / Arrival / Alien / Fargo
What is my mother's profession? | Mum spent thirty years teaching {v} at the local high school. | chemistry / geography / music / art / Latin
How do I get to the office? | My commute is a {v} ride along the river each morning. | bike / tram / ferry / bus / scooter
What medication do I take every day? | The doctor put me on {v} for my blood pressure. | lisinopril / amlodipine / losartan / ramipril
What did I name my boat? | We painted {v} on the hull of the sailboat this weekend. | Seagull / Wanderer / Blue Moon / Osprey / Halcyon
What is my star sign? | My horoscope app insists that as a {v} I should avoid big decisions this month. | Leo / Virgo / Aries / Taurus / Libra
What colour did we paint the bedroom? | Spent the whole weekend rolling {v} onto the walls upstairs where we sleep. | sage green / navy / terracotta / mustard / lavender
What's the name of my best friend? | {v} and I have been inseparable since primary school. | Marcus / Aisha / Jonas / Beatriz / Kenji
Which football club do I support? | Watching {v} lose again ruined my Saturday. | Arsenal / Celtic / Ajax / Benfica / Napoli
How tall am I? | At {v} I always end up in the back row of photos. | six foot two / 193 centimetres / six foot four / 190 centimetres
What is my coffee order? | The barista knows me by now: a {v}, extra hot. | flat white / cortado / oat latte / double espresso / cappuccino
What is my grandmother's name? | Nana {v} turns ninety next month and still bakes every Friday. | Rosa / Edith / Margit / Yoko / Agnes
Which carrier do I usually travel with by air? | My frequent flyer card with {v} finally reached gold. | KLM / Lufthansa / Qantas / Iberia / Finnair
What's the name of my therapist? | Dr {v} suggested I keep a journal of my worries. | Okafor / Lindqvist / Moreau / Tanaka / Petrov
Which house plant do I keep killing? | RIP to yet another {v}, I overwatered it again. | fiddle leaf fig / basil / orchid / calathea / maidenhair fern
What is my son's favourite toy? | Leo won't go anywhere without his {v}. | plush rabbit / wooden train / red fire truck / dinosaur puzzle
Where did I get married? | Our wedding in {v} was the best day of my life. | Tuscany / Santorini / Dubrovnik / Bruges / Sintra
What is my go-to karaoke song? | Whenever we hit the bar with the microphones, I belt out {v}. | Bohemian Rhapsody / Dancing Queen / Wonderwall / Africa / Valerie
What do I drink to wind down in the evening? | Nothing relaxes me after dinner like a glass of {v}. | chamomile tea / red wine / warm milk / peppermint tea / whisky
What is my apartment number? | Deliveries keep going to the wrong flat, mine is {v}. | 4B / 12 / 7C / 21 / 3A
What was my first job? | As a teenager I flipped burgers at {v} every summer. | Lucky's Diner / the pier kiosk / Mel's Grill / the bowling alley
Which gym am I a member of? | Paid for another year at {v}, the squat racks are never free. | Iron Temple / Fit Factory / PeakForm / Pulse Club
"""
)

# question | statement in one session | statement in another | values: a fact spread over sessions, each
# statement with a value of its own.
MULTI = tuple(
    (question, tuple(statements), values)
    for question, *statements, values in table(
        """
Which musical instruments do I play? | I've been practising {v} chords every evening after dinner. | Dusted off my old {v} from the attic and it's still in tune. | guitar / violin / cello / ukulele / banjo / mandolin
What countries have I visited for work? | The client meeting in {v} ran long, but the food made up for it. | Landed in {v} for the quarterly review with the regional office. | Japan / Brazil / Kenya / Canada / Norway / India
What books have I read this year? | Just finished {v} on the train, could not put it down. | Started {v} last night, the opening chapter is gripping. | Middlemarch / Dune / Beloved / Stoner / Rebecca / Persuasion
What sports do I do each week? | Tuesday {v} league: we lost, but I scored twice. | Booked a court for {v} with Sam again on Thursday. | volleyball / netball / badminton / squash / handball
Which relatives came to visit me? | My cousin {v} stayed on our sofa for three nights. | Uncle {v} dropped by unannounced with a bag of apples. | Pavel / Lucia / Omar / Greta / Tariq / Nell
What gifts did I buy for the holidays? | Wrapped a {v} for my brother tonight, he'll love it. | Picked out a {v} for Dad at the market. | scarf / chess set / wristwatch / cookbook / wallet / headphones
What courses am I taking online? | Module three of my {v} class had a brutal quiz. | Enrolled in an evening {v} programme through the community college. | data science / photography / accounting / UX design / creative writing
What home repairs have I done? | Replaced the leaking {v} under the sink myself, no plumber needed. | Spent Saturday patching the {v} in the hallway. | pipe / valve / drywall / ceiling / skirting board / door frame
Which bands have I seen live? | The {v} gig last night was so loud my ears are still ringing. | Got front-row spots for {v} at the arena, what a show. | Radiohead / Arcade Fire / Bjork / Massive Attack / The National / Portishead
What are my weekend volunteering jobs? | Helped sort donations at the {v} on Saturday morning. | Walked dogs for the {v} again, the old greyhound loves me. | food bank / animal rescue / charity shop / night shelter / library
Which streaming shows am I watching? | Binged three episodes of {v} last night. | Can't wait for the finale of {v} on Friday. | Severance / The Bear / Succession / Shogun / Slow Horses / Fleabag
Which cuisines did I cook from scratch? | Made {v} dumplings tonight, the folding took forever. | My {v} curry turned out better than the takeaway. | Nepali / Thai / Sri Lankan / Malaysian / Burmese
"""
    )
)

# Questions whose answer no user ever gives.
NEVER_SAID = tuple(
    """
What breed is my horse?
Which instrument does my grandfather play?
What is my brother-in-law's job?
Where did I spend my honeymoon?
What is the name of my landlord?
Which tattoo did I get last summer?
What is my daughter's teacher called?
Which vaccine did my dog receive?
What is my neighbour's surname?
Which board game did I win at the party?
What did I name my goldfish?
Which podcast do I host?
What is my locker combination?
Which motorbike do I own?
What award did my mother win?
Which island did I sail to?
What did my uncle cook at Christmas?
What is my parrot's favourite word?
Which chess opening do I prefer?
What is my dentist's name?
""".strip().splitlines()
)

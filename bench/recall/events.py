"""What users tell the agent that depends on when it was said: dated events and facts that change.

The same paraphrase rule as facts.py holds for every statement here.
"""

from __future__ import annotations

from .facts import table

# what the question asks | statement | values: events of one sort, each told in a session of its own on
# its own day, so that only the said-time tells them apart.
EVENT_SORTS = table(
    """
Which new hobby did I sample | Went to a {v} class this afternoon, harder than it looks. | pottery / salsa / bouldering / archery / fencing / calligraphy
Where did I have dinner out | The {v} place downtown was amazing, best meal in ages. | Ethiopian / Georgian / Peruvian / Sichuan / Lebanese / Basque
What film did I see at the cinema | Caught {v} on the silver screen tonight, the soundtrack was incredible. | Oppenheimer / Past Lives / Barbie / Anatomy of a Fall / Aftersun / Parasite
Which museum did I visit | Spent the whole afternoon at the {v} and only saw half of it. | Louvre / Prado / Tate Modern / Uffizi / Guggenheim / Hermitage
What did I buy for the house | Finally ordered the {v} we have been eyeing for ages. | corner sofa / dining table / bookshelf / wool rug / standing desk / reading lamp
Which friend did I catch up with | Long lunch with {v}, we talked for hours. | Dimitri / Carmen / Yusuf / Astrid / Felix / Noor
What sporting event did I attend | Screamed myself hoarse at the {v} match in the stadium. | rugby / cricket / baseball / basketball / hockey / tennis
What appointment did I have | The {v} poked around for twenty minutes and sent me home. | dentist / optician / dermatologist / physiotherapist / chiropractor / audiologist
"""
)

# how the question names it | statement | values: one event per user that other events are dated from.
ANCHORS = table(
    """
my holiday abroad | Bags packed, we fly to {v} at dawn! | Lisbon / Reykjavik / Hanoi / Marrakech / Santiago
my marathon | Crossed the finish line in {v}, legs are jelly. | Berlin / Chicago / Valencia / Boston / Rotterdam
my operation | Out of surgery, the {v} team says recovery will be slow. | St Luke's / Royal Free / Mount Sinai / Charite
the conference where I spoke | Gave my talk at {v} today, the room was packed. | PyCon / KubeCon / NeurIPS / Web Summit
my brother's wedding | Gave the best man speech for {v} today, nobody cried, everyone laughed. | Tom / Ravi / Luca / Ben
my job interview | Hours of whiteboard questions at {v}, brain is fried. | Stripe / Spotify / Shopify / Zalando
"""
)

# question | earlier statement | later statement | values: the later statement holds the answer now.
UPDATES = table(
    """
Where am I employed at the moment? | Signed my contract with {v}, I start on Monday. | Handed in my notice; next month I join {v}. | Acme Robotics / Globex / Initech / Umbrella Labs / Hooli / Vandelay
Which city is my home base these days? | Our flat in {v} has the best view of the river. | The movers unloaded the last boxes in {v} today, new chapter! | Lyon / Leipzig / Bilbao / Utrecht / Turin / Krakow
Which physician looks after me? | Saw my GP, Dr {v}, about the rash. | Switched practices; my new GP is Dr {v}, much easier to book. | Nakamura / Haddad / Keller / Osei / Varga / Quinn
What time do I wake up on weekdays? | Alarm goes off at {v} every workday, brutal. | New routine: up at {v} on workdays so I can jog first. | 6:00 / 5:30 / 7:15 / 6:45 / 5:45
What diet am I following? | Trying a {v} way of eating, day three and feeling fine. | Dropped the old regime, I'm strictly {v} now. | vegetarian / vegan / keto / pescatarian / paleo
How much do I pay in rent? | Landlord charges {v} a month for this place. | Lease renewed and the monthly cost jumped to {v}. | $1,200 / $1,450 / $980 / $1,700 / $2,100
Which phone do I use? | Cracked the screen on my {v} again. | Upgraded to a {v}, the camera is unreal. | iPhone 13 / Galaxy S22 / Pixel 8 / Fairphone 5 / Nokia X30
What is my running personal best? | Clocked {v} for the 10k around the lake. | Shaved time off the 10k this morning: {v}! | 52:10 / 49:30 / 47:55 / 55:20 / 45:40
What colour is my hair right now? | Dyed it {v} for the festival. | Went back to {v} at the salon today. | platinum blonde / copper red / jet black / pastel pink / chestnut brown
What is my salary? | The offer letter says {v} a year. | Got the raise! Bumped to {v} annually. | $85,000 / $92,000 / $78,500 / $101,000 / $67,000
Which school does my kid attend? | Emma's first week at {v} went better than expected. | We moved Emma to {v} after the term ended. | Oakwood Primary / St Mary's / Riverside Academy / Hillcrest / Maple Grove
What is my bedtime? | Lights out by {v}, trying to be disciplined. | Pushed sleep later, lights out around {v} now. | 10:30 / 11:00 / 9:45 / 11:30 / 10:00
How much do I weigh? | Scale says {v} this morning. | Down to {v} on the scale after months of effort. | 82 kg / 79 kg / 91 kg / 74 kg / 68 kg
Which bank do I use? | Opened a current account with {v}. | Moved all my savings over to {v}, better interest. | Monzo / Barclays / ING / Revolut / Chase
What is my team's project called? | Kickoff for {v} went smoothly, the roadmap looks sane. | Reassigned this morning: I'm leading {v} from now on. | Atlas / Nimbus / Falcon / Orion / Quartz
Who is my manager? | My boss {v} approved the leave request. | Reorg happened, I now report to {v}. | Gwen / Rashid / Ines / Viktor / Chloe
"""
)

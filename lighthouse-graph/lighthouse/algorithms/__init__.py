"""Four questions about the graph as a whole, now and at one time: groups(), important(), between(), connection().

groups.py: groups(); ranking.py: important() and between(); connection.py: connection(); scope.py: what a
question may ask and reads; snapshot.py: the nodes and edges it reads, in one query, as numbered nodes;
kept.py: answers kept until the graph grows; components.py and centrality.py: union-find, PageRank and
Brandes' count of paths, in plain Python, for the answers FalkorDB gets wrong or cannot give at a time.
"""

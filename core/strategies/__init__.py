"""The four reasoning strategies: simple (direct), multi_hop (Plan-and-Execute),
comparative (ReWOO) and exploratory (ReAct). Subgraphs live with their strategy."""

"""Domain pieces shared by several features: names, private refs, structured logs."""

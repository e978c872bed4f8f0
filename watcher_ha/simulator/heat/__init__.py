"""The simulator's Heat: HOT templates (template), resource types
(resource_types, properties, groups), stacks with their resources and
events (records), the convergence engine (engine, traversal), Heat's
notifications, and the Orchestration API v1 (api, views, listing)."""

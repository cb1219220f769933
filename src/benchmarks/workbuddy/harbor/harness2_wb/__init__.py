"""harness2's Harbor agents for WorkBuddy-Bench (installed by `harness2 setup --bench wb`)."""

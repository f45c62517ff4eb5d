# An environment made elsewhere (genv, a script, another tool), by its id; a configuration that
# matches it then plans no changes.
terraform import geminienvironments_environment.example env_abc123

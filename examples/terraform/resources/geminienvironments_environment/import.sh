# An environment made elsewhere (genv, a script, another tool), by its id:
terraform import geminienvironments_environment.example env_abc123

# A credential made elsewhere, by its credential_id (its secret is write-only: set it in the config):
terraform import geminienvironments_credential.github github-token

# A credential made elsewhere, by its credential_id. Its secret is write-only (the API never returns
# it), and an import reads no token_wo_version: the first apply after the import sends token_wo once.
terraform import geminienvironments_credential.github github-token

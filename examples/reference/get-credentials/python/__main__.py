import pulumi
import pulumi_gemini_environments as genv

pulumi.export("credentials", genv.get_credentials_output().credentials)

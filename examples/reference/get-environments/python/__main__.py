import pulumi
import pulumi_gemini_environments as genv

on_demand = genv.get_environments_output(mode=genv.EnvironmentMode.ON_DEMAND)

pulumi.export("environments", on_demand.environments)

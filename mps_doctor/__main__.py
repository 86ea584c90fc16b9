from mps_doctor.cli import run

run()

"""What a release keeps of the data (utility), reported beside what it exposes."""

/** Who is calling: the user a valid access token belongs to, and that user's team (if any). */
export interface Member {
  userId: string;
  teamId: string | null;
  clientId: string;
}
